// 50 runs at once on two function processes: every run request delivered to
// both, every Job change delivered to both, a module result delivered twice.
// Same end state as one clean delivery, and no Job created twice. Requests
// are sent as a broker sends them: retried on connection errors, 429 and 5xx;
// but a healthy function answers no 5xx (a lost race is decided again, never
// handed back as 503): every retried attempt is recorded and none may be one.
import { afterEach, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, SCENARIO, serverErrors, type Harness } from './support/cascade-harness.ts';
import { waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => { await h?.stop(); h = undefined; });

const RUNS = 50;
const iuid = (i: number) => `${(0x10000 + i).toString(16)}-${i}`;

describe('duplicates and concurrency', () => {
  it(`${RUNS} runs, each event twice, two replicas: each run succeeds once, each Job is created once`, { timeout: 400_000 }, async () => {
    h = await cascadeHarness({ modules: successScenario(0), replicas: 2 });
    const names = await Promise.all(Array.from({ length: RUNS }, async (_, i) => {
      const body = { turlinfo: `s3://in/${i}.tgz`, iuid: iuid(i), oname: 'org', sname: `src${i % 3}` };
      const [a, b] = await Promise.all([h!.deliver(0, body), h!.deliver(1, body)]);
      expect([a, b].map((r) => `${r.status} ${String(r.body.error ?? "")}`)).toEqual(["200 ", "200 "]);
      expect(a.body.run).toBe(b.body.run);
      const run = String(a.body.run);
      const result = { runname: run, modulename: 'grayscale', moduleresult: 'success' };
      const replies = await Promise.all([h!.deliver(1, result), h!.deliver(0, result)]);
      expect(replies.map((r) => r.status)).toEqual([200, 200]);
      return run;
    }));
    expect(new Set(names).size).toBe(RUNS);

    const ended = await waitFor(async () => {
      const runs = await h!.listRuns();
      const done = runs.filter((r) => r.status?.notified);
      return done.length === RUNS ? runs : undefined;
    }, { timeoutMs: 180_000, intervalMs: 1000, message: `${RUNS} runs ended` });

    for (const run of ended) {
      const succeeded = run.status?.conditions?.find((c) => c.type === 'Succeeded');
      expect({ run: run.metadata.name, phase: run.status?.phase, why: succeeded?.message })
        .toEqual({ run: run.metadata.name, phase: 'Succeeded', why: 'all 3 modules succeeded' });
      expect(run.status?.result).toEqual(['grayscale: success\n']);
      expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
    }
    expect(h.jobs.size).toBe(RUNS * 3);
    const twice = [...h.jobs].filter(([, byUid]) => byUid.size !== 1).map(([name]) => name);
    expect(twice).toEqual([]);
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: RUNS, failed: 0, result: 'Success' });
    expect(names.every((n) => n.startsWith(`${SCENARIO}-`))).toBe(true);
    expect(serverErrors(h.deliveries), 'run requests, results and Job events retried after a 5xx or no answer').toEqual([]);
    expect(h.deliveries.givenUp).toEqual([]);
  });
});
