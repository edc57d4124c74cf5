import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../api/cascade-run.ts';
import { onlySettledDeletes } from './settled-delete.ts';
import type { Action, Decision } from './types.ts';

const run = (phases: string[], uids: string[]) =>
  ({
    metadata: { name: 'r' },
    spec: {},
    status: { phase: 'Running', modules: phases.map((phase, i) => ({ phase, jobName: `j${i}`, jobUid: uids[i] })) },
  }) as unknown as CascadeRun;

const decision = (actions: Action[], changed = false): Decision => ({
  status: {},
  changed,
  actions,
  transitions: [],
  verdict: 'applied',
  ignoredJobs: [],
});

const del = (step: number, uid?: string): Action => ({ type: 'DeleteJob', name: `j${step}`, step, uid });

describe('onlySettledDeletes', () => {
  const r = run(['Succeeded', 'Running'], ['u0', 'u1']);

  it('a delete of a succeeded step’s Job by its recorded uid needs no read', () => {
    expect(onlySettledDeletes(r, decision([del(0, 'u0')]))).toBe(true);
  });

  it.each([
    ['another uid than recorded', decision([del(0, 'forged')])],
    ['no uid', decision([del(0)])],
    ['a step still running', decision([del(1, 'u1')])],
    ['a step with no record', decision([del(5, 'u5')])],
    ['a status change beside it', decision([del(0, 'u0')], true)],
    ['another action beside it', decision([del(0, 'u0'), { type: 'FinishRun', phase: 'Succeeded', eventOwed: false }])],
    ['no action at all', decision([])],
  ])('anything else is read first: %s', (_name, d) => {
    expect(onlySettledDeletes(r, d)).toBe(false);
  });

  it('a failed step’s Job is read first: a failed run keeps it', () => {
    expect(onlySettledDeletes(run(['Failed'], ['u0']), decision([del(0, 'u0')]))).toBe(false);
  });
});
