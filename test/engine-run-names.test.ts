// Two iuids sharing their first 5 characters (README "Collisions"): the first
// gets the Go controller's name, the next ones `-<8 hex chars of
// sha256(iuid)>`; each iuid delivered again finds its own run; each run has
// its own Jobs and environment and ends on its own. The function runs as a
// real process on the real API server; names are computed here independently.
import { createHash } from 'node:crypto';
import type { V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, OUT, post, SCENARIO } from './support/cascade-harness.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const hashed = (iuid: string) => `${SCENARIO}-abcde-${createHash('sha256').update(iuid).digest('hex').slice(0, 8)}`;
const s3path = (job: V1Job | undefined) =>
  job?.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 's3path')?.value;

describe('iuids sharing their first 5 characters', () => {
  it(
    'get distinct runs (the hashed name for the later ones), found again by their iuid, each ending on its own',
    { timeout: 180_000 },
    async () => {
      h = await cascadeHarness({ modules: successScenario(0) });
      const iuids = ['abcde-0001', 'abcde-0002', 'ABCDE-0003'];
      const expected = [`${SCENARIO}-abcde`, hashed(iuids[1]!), hashed(iuids[2]!)];
      const start = async (iuid: string) => {
        const reply = await post(h!.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        return reply.body.run;
      };
      const names: unknown[] = [];
      for (const iuid of iuids) names.push(await start(iuid));
      expect(names).toEqual(expected);
      expect(await Promise.all([...iuids].reverse().map(start))).toEqual([...expected].reverse());

      const runs = await Promise.all(expected.map((name) => h!.waitEnded(name)));
      expect(runs.map((r) => [r.metadata.name, r.spec.pid, r.status?.phase])).toEqual(
        expected.map((name, i) => [name, iuids[i], 'Succeeded']),
      );
      expect((await h.listRuns()).map((r) => r.metadata.name).sort()).toEqual([...expected].sort());
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: 3, failed: 0 });

      const suffix = (run: string) => run.slice(SCENARIO.length + 1);
      const jobNames = expected.flatMap((run) =>
        ['grayscale', 'binarization', 'diff'].map((m) => `${SCENARIO}-${m}-${suffix(run)}`),
      );
      const recorded = await h.recorded(jobNames);
      expect([...recorded.keys()].sort()).toEqual([...jobNames].sort());
      for (const [i, run] of expected.entries()) {
        const job = [...recorded.get(`${SCENARIO}-binarization-${suffix(run)}`)!.values()];
        expect(job).toHaveLength(1);
        expect(s3path(job[0])).toBe(`${OUT}${SCENARIO}/${iuids[i]}/${iuids[i]}-stage-1.zip`);
      }
    },
  );
});
