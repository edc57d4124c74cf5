// 50 runs at once on two function processes behind the Broker stand-in:
// every run request and every module result sent to the Broker twice (its
// attempts go round robin, so the two copies land on both replicas), every
// Job change sent twice (two ApiServerSource stand-ins). Same end state as
// one clean delivery, and no Job created twice. A healthy function answers no
// 5xx (a lost race is decided again, never handed back as 503) and leaves
// nothing for the dead-letter sink: the Broker records every attempt, and
// none may be retried after a 5xx or fail.
import { afterEach, describe, expect, it } from 'vitest';
import { MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { brokerTrouble, cascadeHarness, COUNTERS_SETTLE, type Harness, SCENARIO } from './support/cascade-harness.ts';
import { waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const RUNS = 50;
const iuid = (i: number) => `${(0x10000 + i).toString(16)}-${i}`;

describe('duplicates and concurrency', () => {
  it(
    `${RUNS} runs, each event twice, two replicas: each run succeeds once, each Job is created once`,
    { timeout: 400_000 },
    async () => {
      h = await cascadeHarness({ modules: successScenario(0), replicas: 2, source: 2 });
      const names = await Promise.all(
        Array.from({ length: RUNS }, async (_, i) => {
          const body = { turlinfo: `s3://in/${i}.tgz`, iuid: iuid(i), oname: 'org', sname: `src${i % 3}` };
          expect(await Promise.all([h!.deliver(RUN_REQUESTED, body), h!.deliver(RUN_REQUESTED, body)])).toEqual([
            202, 202,
          ]);
          const run = `${SCENARIO}-${iuid(i).slice(0, 5)}`;
          // The module runs once its Job exists: only then can it send its result.
          await waitFor(
            async () => ['Running', 'Succeeded'].includes((await h!.getRun(run)).status?.modules?.[0]?.phase ?? ''),
            { timeoutMs: 120_000, message: `${run} started` },
          );
          const result = { runname: run, modulename: 'grayscale', moduleresult: 'success' };
          expect(await Promise.all([h!.deliver(MODULE_FINISHED, result), h!.deliver(MODULE_FINISHED, result)])).toEqual(
            [202, 202],
          );
          return run;
        }),
      );
      expect(new Set(names).size).toBe(RUNS);

      const ended = await waitFor(
        async () => {
          const runs = await h!.listRuns();
          const done = runs.filter((r) => r.status?.notified);
          return done.length === RUNS ? runs : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 1000, message: `${RUNS} runs ended` },
      );

      for (const run of ended) {
        const succeeded = run.status?.conditions?.find((c) => c.type === 'Succeeded');
        expect({ run: run.metadata.name, phase: run.status?.phase, why: succeeded?.message }).toEqual({
          run: run.metadata.name,
          phase: 'Succeeded',
          why: 'all 3 modules succeeded',
        });
        expect(run.status?.result).toEqual(['grayscale: success\n']);
        expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
      }
      expect(h.jobs.size).toBe(RUNS * 3);
      const twice = [...h.jobs].filter(([, byUid]) => byUid.size !== 1).map(([name]) => name);
      expect(twice).toEqual([]);
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: RUNS, failed: 0, result: 'Success' });
      expect(names.every((n) => n.startsWith(`${SCENARIO}-`))).toBe(true);
      await h.broker.settled();
      expect(brokerTrouble(h.broker), 'deliveries retried after a 5xx or no answer, or failed').toEqual([]);
      expect(h.deadLetters.received).toEqual([]);
      const perReplica = [0, 1].map((i) => h!.broker.attempts.filter((a) => a.target === h!.fns[i]!.url).length);
      expect(
        perReplica.every((n) => n > RUNS),
        `both replicas served: ${perReplica.join(', ')}`,
      ).toBe(true);
      expect(h.deliveries.givenUp).toEqual([]);
    },
  );
});
