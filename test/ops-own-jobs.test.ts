// Issue 43 §3: a step moves as soon as the function's own watch of its Jobs
// shows a Job it made finished (shared/engine/sync/own-jobs.ts), not when the
// Broker delivers that Job's event. With no ApiServerSource at all, every run
// still ends; before, each stayed on its first step until a janitor sweep.
// With two replicas and every Job change delivered twice, the watch of the
// replica that made a Job and the events at either replica move each step
// once: each step's Job is created once (by uid), each run counted once.
import { afterEach, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness, post } from './support/cascade-harness.ts';
import { expectEndedOnce } from './support/ended-once.ts';

const MODULES = successScenario(500);
const NAMES = MODULES.map((m) => m.modulename);
const RUNS = 6;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** RUNS run requests at once, spread over the replicas; the runs' names. */
async function requestRuns(harness: Harness, tag: string, replicas: number): Promise<string[]> {
  const request = (i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: `${tag}${i}0-own`, oname: 'o' });
  const replies = await Promise.all(
    Array.from({ length: RUNS }, (_, i) => post(harness.url(i % replicas), request(i))),
  );
  for (const reply of replies) expect(reply.status).toBe(200);
  return replies.map((reply) => String(reply.body.run));
}

it('with no Job event at all, every run ends: the process that made each Job moves its run from its watch', async () => {
  h = await cascadeHarness({ modules: MODULES, source: false });
  const runs = await requestRuns(h, 'a', 1);
  await expectEndedOnce(h, runs, NAMES);
  const jobEvents = h.broker.attempts.filter((a) => a.type.startsWith('dev.knative.apiserver.'));
  expect(jobEvents, 'no Job event reached the Broker').toEqual([]);
});

it('with two replicas and every Job change delivered twice, each step moves once', async () => {
  h = await cascadeHarness({ modules: MODULES, replicas: 2, source: 2 });
  const runs = await requestRuns(h, 'b', 2);
  await expectEndedOnce(h, runs, NAMES);
});
