import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../api/cascade-run.ts';
import { onlySettledDeletes } from './settled-delete.ts';
import type { Action, Decision } from './types.ts';

const run = (phase: string) => ({ metadata: { name: 'r' }, spec: {}, status: { phase } }) as unknown as CascadeRun;

const decision = (actions: Action[], changed = false): Decision => ({
  status: {},
  changed,
  actions,
  transitions: [],
  verdict: 'applied',
  ignoredJobs: [],
});

const ofRun = (name = 'r'): Action => ({ type: 'DeleteRunJobs', run: name });

describe('onlySettledDeletes', () => {
  it('the delete of a succeeded run’s Jobs needs no read', () => {
    expect(onlySettledDeletes(run('Succeeded'), decision([ofRun()]))).toBe(true);
  });

  it.each([
    ['a failed run (it may have been resumed)', run('Failed'), decision([ofRun()])],
    ['a cancelled run (it may have been resumed)', run('Cancelled'), decision([ofRun()])],
    ['a run still running', run('Running'), decision([ofRun()])],
    ['another run’s Jobs', run('Succeeded'), decision([ofRun('other')])],
    ['one Job by name', run('Succeeded'), decision([{ type: 'DeleteJob', name: 'j0', step: 0, uid: 'u0' }])],
    ['a status change beside it', run('Succeeded'), decision([ofRun()], true)],
    [
      'another action beside it',
      run('Succeeded'),
      decision([ofRun(), { type: 'FinishRun', phase: 'Succeeded', eventOwed: false }]),
    ],
    ['no action at all', run('Succeeded'), decision([])],
  ])('anything else is read first: %s', (_name, r, d) => {
    expect(onlySettledDeletes(r, d)).toBe(false);
  });
});
