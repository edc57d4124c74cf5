// The CascadeAutoOperator's counters as a function of its runs, against the
// real API server, with two replicas. The replica holding the counters' Lease
// writes them; the other writes none. No write on the operator's status is
// refused 409. Killed, the holder is replaced once its Lease runs out, and the
// counters follow the runs again. A count written wrong is put right: nothing
// is incremented, so nothing can count twice (docs/architecture.md, "Counters").
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark } from '../local/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { operatorRequests } from '../bench/sustained-figures.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';
import { parseMetrics, scrape, value } from './support/ops.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('only', {}, { delayMs: 0 })], replicas: 2, faults: true });
});
afterAll(async () => {
  await h?.stop();
});

/** Whether replica i holds the counters' Lease, from its metrics. */
async function holds(i: number): Promise<boolean> {
  return value(parseMetrics(await scrape(h.fns[i]!.metricsUrl)), 'cascade_counters_writer', {}) === 1;
}

/** The replica that holds the Lease, once one does. */
async function holder(among: number[]): Promise<number> {
  return waitFor(
    async () => {
      for (const i of among) if (await holds(i)) return i;
      return undefined;
    },
    { timeoutMs: 60_000, message: 'a replica holds the counters Lease' },
  );
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

const ops = () => adminKubeConfig().makeApiClient(CoordinationV1Api);

describe("the operator's counters, written by the Lease's holder from the runs", () => {
  let first = -1;

  it('runs sent to both replicas at once: the counters end exact, and no operator write is refused 409', async () => {
    // Each replica loads its engine at its first request and opens its watches and its Lease a second later.
    await burst('d0a1', 1, [0]);
    await burst('d0b1', 1, [1]);
    first = await holder([0, 1]);
    expect(await holds(1 - first)).toBe(false);
    const lease = await ops().readNamespacedLease({ name: 'cascade-counters', namespace: h.ns });
    expect(lease.spec?.holderIdentity).toMatch(/-[0-9a-f]{6}$/);
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await burst('d1a', 20, [0, 1]);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, queued: 0, succeeded: 22, failed: 0, result: 'Success' });
    const lines = auditLinesSince(auditLogOf(adminKubeconfigPath()), mark);
    const { statusWrites, conflicts } = operatorRequests(lines, serviceAccountUser(h.ns, 'cascade-function'));
    expect(statusWrites).toBeGreaterThan(0);
    expect(statusWrites).toBeLessThanOrEqual(44);
    expect(conflicts).toBe(0);
  });

  it('a count written wrong by hand is put right from the runs', async () => {
    const op = await h.operator();
    await h.custom.replaceNamespacedCustomObjectStatus({
      group: 'cascade.cascade.net',
      version: 'v1alpha1',
      namespace: h.ns,
      plural: 'cascadeautooperators',
      name: SCENARIO,
      body: { ...op, status: { ...op.status, active: 7, succeeded: 1 } },
    });
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 22 });
  });

  it('the holder killed, the other replica takes the Lease once it runs out, and the counters follow the runs', async () => {
    expect(first).toBeGreaterThanOrEqual(0);
    const other = 1 - first;
    await h.fns[first]!.stop('SIGKILL');
    await burst('d2a', 4, [other]);
    expect(await holder([other])).toBe(other);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 26, failed: 0 });
  });
});
