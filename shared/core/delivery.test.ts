// Delivered twice, late, out of order: the end state is that of one clean
// delivery, and each Job is created once. Played on a pure stand-in of the API
// server (testing/world.ts); the real one is exercised under test/.
import { describe, expect, it } from 'vitest';
import { result, run } from './testing/fixtures.ts';
import { deliver, finishJob, world, type World } from './testing/world.ts';
import type { Fact } from './types.ts';

const ABC = ['a', 'b', 'c'];
const OBSERVE: Fact = { kind: 'Observe' };
type Step = { fact: Fact } | { finish: number; state: 'Succeeded' | 'Failed' };

const time = (i: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, i)).toISOString();

function play(steps: Step[]): World {
  const w = world(run(ABC));
  steps.forEach((s, i) => {
    if ('fact' in s) deliver(w, s.fact, time(i));
    else finishJob(w, s.finish, s.state, time(i));
  });
  return w;
}

function endState(w: World) {
  const s = w.run.status ?? {};
  return {
    phase: s.phase,
    info: s.info,
    result: [...(s.result ?? [])].sort(),
    modules: s.modules?.map((m) => `${m.name}:${m.phase}:${m.result ?? ''}`),
    jobs: w.jobs.map((j) => j.name).sort(),
    created: [...w.created].sort(),
    notified: s.notified,
  };
}

const clean: Step[] = [
  { fact: OBSERVE },
  { fact: result('a', 'success') },
  { finish: 0, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('b', 'success') },
  { finish: 1, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('c', 'success') },
  { finish: 2, state: 'Succeeded' },
  { fact: OBSERVE },
];

const twice = clean.flatMap((s) => [s, s]);
const jobsFirst: Step[] = [
  { fact: OBSERVE },
  { finish: 0, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('a', 'success') },
  { finish: 1, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('b', 'success') },
  { finish: 2, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('c', 'success') },
];
const resultsLate: Step[] = [
  { fact: OBSERVE },
  { finish: 0, state: 'Succeeded' },
  { fact: OBSERVE },
  { finish: 1, state: 'Succeeded' },
  { fact: OBSERVE },
  { finish: 2, state: 'Succeeded' },
  { fact: OBSERVE },
  { fact: result('c', 'success') },
  { fact: result('a', 'success') },
  { fact: result('b', 'success') },
  { fact: result('a', 'success') },
];

describe('delivery order and repetition', () => {
  const expected = endState(play(clean));

  it('ends a clean run as the Go controller did', () => {
    expect(expected).toMatchObject({
      phase: 'Succeeded',
      info: expect.stringMatching(/-final\.zip$/),
      jobs: [],
      notified: true,
      modules: ['a:Succeeded:success', 'b:Succeeded:success', 'c:Succeeded:success'],
    });
    expect(expected.created).toHaveLength(3);
  });

  it.each([
    ['every event twice', twice],
    ['Job events before results', jobsFirst],
    ['results after the run ended, out of order and repeated', resultsLate],
  ])('%s gives the same end state', (_name, steps) => {
    expect(endState(play(steps))).toEqual(expected);
  });

  it('a failure at step 2 keeps its Job and creates nothing after it, however often delivered', () => {
    const fail: Step[] = [
      { fact: OBSERVE },
      { finish: 0, state: 'Succeeded' },
      { fact: OBSERVE },
      { fact: result('b', 'fail') },
      { finish: 1, state: 'Failed' },
      { fact: OBSERVE },
    ];
    const once = endState(play(fail));
    expect(once).toMatchObject({
      phase: 'Failed',
      info: 'Failed',
      modules: ['a:Succeeded:', 'b:Failed:fail', 'c:Pending:'],
    });
    expect(once.jobs).toHaveLength(1);
    expect(once.created).toHaveLength(2);
    expect(endState(play(fail.flatMap((s) => [s, s])))).toEqual(once);
  });
});
