import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { decide } from '../../core/decide.ts';
import type { ObservedJob } from '../../core/observed-job.ts';
import { ABC, running } from '../../core/testing/decisions.ts';
import { input, job, NOW, run, RUN, SETTINGS } from '../../core/testing/fixtures.ts';
import { runChanges } from '../process/run-changes.ts';
import { madeElsewhere, takenIn } from './made-elsewhere.ts';

const at = { now: NOW, settings: SETTINGS };
const done0 = job(ABC, 0, 'Succeeded', { uid: 'u0' });
const active1 = job(ABC, 1, 'Active', { uid: 'u1' });
const done2 = job(ABC, 2, 'Succeeded', { uid: 'u2' });
/** The run as the process that made its last Job leaves it once that Job succeeded. */
const ended = run(ABC, { ...decide(input(run(ABC, running(2)), [done2])).status, slotReleased: true, notified: true });
/** The run as the process that made Job 0 leaves it once that Job succeeded: step 1 started. */
const moved = run(ABC, decide(input(run(ABC, running(0)), [done0])).status);

describe('whether the run, as the watches show it, took in a finished Job another process made', () => {
  it.each<[string, CascadeRun, ObservedJob[], ObservedJob, boolean]>([
    ['its maker moved the run, and the next Job is seen', moved, [done0, active1], done0, true],
    ['its maker moved the run, the next Job not seen yet: its step just started', moved, [done0], done0, true],
    ['its maker has not moved the run yet', run(ABC, running(0)), [done0], done0, false],
    [
      'the watch shows the Job still running',
      moved,
      [{ ...done0, state: 'Active', done: false }, active1],
      done0,
      false,
    ],
    [
      'the watch shows it finished, not done, the event done',
      moved,
      [{ ...done0, done: false }, active1],
      done0,
      false,
    ],
    ['the watch has not shown the Job', moved, [active1], done0, false],
    ['the run ended and its Jobs deleted, as the watches show them', ended, [], done2, true],
    ['the run ended, its last Job done and not deleted yet', ended, [done2], done2, false],
    ['a claim of a uid the watch never saw', moved, [done0, active1], { ...done0, uid: 'x' }, false],
  ])('%s', (_what, copy, seen, event, taken) => {
    expect(takenIn(copy, seen, event, at)).toBe(taken);
  });
});

describe('a finished Job event waits for the move of the process that made the Job', () => {
  function world() {
    const changes = runChanges();
    const state: { run: CascadeRun; jobs: ObservedJob[] } = { run: run(ABC, running(0)), jobs: [done0] };
    const view = { run: () => state.run, jobs: () => state.jobs, next: changes.next };
    return {
      changes,
      state,
      wait: madeElsewhere(
        view,
        () => new Date(NOW),
        () => SETTINGS,
      ),
    };
  }

  it('goes on at the change that shows the move, with the run as moved', async () => {
    const { changes, state, wait } = world();
    const waiting = wait(done0, 60_000);
    state.run = moved;
    state.jobs = [done0, active1];
    changes.seen(RUN);
    expect(await waiting).toBe(moved);
  });

  it('gives up after its grace when no change shows the move', async () => {
    const { changes, wait } = world();
    const started = Date.now();
    changes.seen(RUN);
    expect(await wait(done0, 50)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('with no grace, answers from the watches as they are', async () => {
    const { state, wait } = world();
    expect(await wait(done0, 0)).toBeUndefined();
    state.run = moved;
    state.jobs = [done0, active1];
    expect(await wait(done0, 0)).toBe(moved);
  });
});
