// Two replicas of the function, runs sent to both at once. The replica that
// wrote the operator's counters last goes on writing them: the other leaves
// its starts and ends to it, and waits to see them counted through its watch.
// So no write on the operator's status is refused 409, and every count is
// exact. Killed, the writer is replaced: the other replica writes its counts
// itself after the wait. Counted from the audit log and each replica's metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark } from '../local/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { operatorRequests } from '../bench/sustained-figures.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { adminKubeconfigPath } from './support/kube.ts';
import { parseMetrics, scrape, value } from './support/ops.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('only', {}, { delayMs: 0 })], replicas: 2, faults: true });
});
afterAll(async () => {
  await h?.stop();
});

/** Replica i's starts and ends left to the writer: counted by it, or written by replica i after the wait. */
async function left(i: number): Promise<{ counted: number; written: number }> {
  const m = parseMetrics(await scrape(h.fns[i]!.metricsUrl));
  const of = (outcome: string) => value(m, 'cascade_counts_left_total', { outcome });
  return { counted: of('counted'), written: of('written') };
}

/** `n` run requests at once, replica by replica in turn; resolves once every run ended. */
async function burst(prefix: string, n: number, replicas: number[]): Promise<void> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      post(h.url(replicas[i % replicas.length]), { turlinfo: 's3://in/x.tgz', iuid: `${prefix}${i}` }),
    ),
  );
  for (const r of replies) expect(r.status).toBe(200);
  await Promise.all(replies.map((r) => h.waitEnded(String(r.body.run), 120_000)));
}

describe("one writer of the operator's counters among replicas", () => {
  let holder = -1;

  it('runs sent to both replicas at once: one replica writes every count, none is refused 409', async () => {
    // Each replica loads its engine at its first request and opens its watches a second later.
    await burst('c0a1', 1, [0]);
    await burst('c0b1', 1, [1]);
    await new Promise((r) => setTimeout(r, 2000));
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await burst('c1a', 20, [0, 1]);
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: 22, failed: 0 });
    const lines = auditLinesSince(auditLogOf(adminKubeconfigPath()), mark);
    const { statusWrites, conflicts } = operatorRequests(lines, serviceAccountUser(h.ns, 'cascade-function'));
    expect(statusWrites).toBeGreaterThan(0);
    expect(conflicts).toBe(0);
    const counts = [await left(0), await left(1)];
    holder = counts.findIndex((c) => c.counted === 0);
    expect(holder).toBeGreaterThanOrEqual(0);
    // The other replica started 10 runs, and ended those whose last Job's events the Broker gave it.
    expect(counts[1 - holder]!.counted).toBeGreaterThanOrEqual(10);
    expect(counts[1 - holder]!.written).toBe(0);
    expect((await h.operator()).status?.writer).toMatch(/-[0-9a-f]{6}$/);
  });

  it('the writer killed, the other replica writes its own counts after the wait, then holds', async () => {
    expect(holder).toBeGreaterThanOrEqual(0);
    const other = 1 - holder;
    const before = await left(other);
    await h.fns[holder]!.stop('SIGKILL');
    await burst('c2a', 4, [other]);
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: 26, failed: 0 });
    const after = await left(other);
    expect(after.written - before.written).toBeGreaterThanOrEqual(1);
    // Once its own write is seen, it holds: nothing more is left to anyone.
    const total = after.written + after.counted - before.written - before.counted;
    expect(total).toBeLessThan(8);
  });
});
