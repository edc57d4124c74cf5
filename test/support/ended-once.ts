// The end state every run of a test must reach, whatever moved it: Succeeded,
// each step's Job created once (by uid, from the harness's record of every Job),
// and the run counted once on its CascadeAutoOperator.
import { expect } from 'vitest';
import { jobName } from '../../shared/names.ts';
import { COUNTERS_SETTLE, type Harness, SCENARIO } from './cascade-harness.ts';

/** Every run of `runs` ended Succeeded, the Job of each of `modules` created once for it, and counted once. */
export async function expectEndedOnce(harness: Harness, runs: string[], modules: readonly string[]): Promise<void> {
  for (const name of runs) expect((await harness.waitEnded(name)).status?.phase, name).toBe('Succeeded');
  const names = runs.flatMap((run) => modules.map((_, step) => jobName(SCENARIO, run, modules, step))).sort();
  const recorded = await harness.recorded(names);
  expect([...recorded.keys()].sort()).toEqual(names);
  for (const [name, byUid] of recorded) expect(byUid.size, `Job ${name} created once`).toBe(1);
  await expect
    .poll(async () => (await harness.operator()).status, COUNTERS_SETTLE)
    .toMatchObject({ active: 0, succeeded: runs.length, failed: 0 });
}
