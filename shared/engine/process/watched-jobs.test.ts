import { describe, expect, it } from 'vitest';
import type { JobObject } from '../../core/observed-job.ts';
import { LABEL_RUN, LABEL_STEP } from '../../names.ts';
import { NO_HELD_JOBS, watchedJobs } from './watched-jobs.ts';

function job(name: string, uid: string, condition?: 'Complete' | 'SuccessCriteriaMet' | 'Failed'): JobObject {
  return {
    metadata: { name, uid, labels: { [LABEL_RUN]: 'run-1', [LABEL_STEP]: '0' } },
    status: { conditions: condition ? [{ type: condition, status: 'True', reason: 'R' }] : [] },
  };
}

describe("the finished Jobs the function's watch showed", () => {
  it('holds a finished Job under its name, uid and state, and nothing else', () => {
    const held = watchedJobs();
    held.see('ADDED', job('a', 'u1'));
    expect(held.finished('a', 'u1', 'Succeeded')).toBeUndefined();
    held.see('MODIFIED', job('a', 'u1', 'SuccessCriteriaMet'));
    expect(held.finished('a', 'u1', 'Succeeded')).toMatchObject({
      name: 'a',
      uid: 'u1',
      state: 'Succeeded',
      done: false,
    });
    held.see('MODIFIED', job('a', 'u1', 'Complete'));
    expect(held.finished('a', 'u1', 'Succeeded')).toMatchObject({ done: true });
    // Another state, another name or another uid than the watch showed: not held.
    expect(held.finished('a', 'u1', 'Failed')).toBeUndefined();
    expect(held.finished('b', 'u1', 'Succeeded')).toBeUndefined();
    expect(held.finished('a', 'u2', 'Succeeded')).toBeUndefined();
  });

  it('forgets a deleted Job, so a claim about it is read', () => {
    const held = watchedJobs();
    held.see('MODIFIED', job('a', 'u1', 'Failed'));
    expect(held.finished('a', 'u1', 'Failed')).toMatchObject({ state: 'Failed' });
    held.see('DELETED', job('a', 'u1', 'Failed'));
    expect(held.finished('a', 'u1', 'Failed')).toBeUndefined();
  });

  it('ignores a Job without a uid or without the labels of a step', () => {
    const held = watchedJobs();
    held.see('ADDED', { metadata: { name: 'a' }, status: { conditions: [{ type: 'Complete', status: 'True' }] } });
    held.see('ADDED', { ...job('b', 'u2', 'Complete'), metadata: { name: 'b', uid: 'u2', labels: {} } });
    expect(held.finished('a', '', 'Succeeded')).toBeUndefined();
    expect(held.finished('b', 'u2', 'Succeeded')).toBeUndefined();
  });

  it('holds at most `capacity` Jobs, the oldest out first', () => {
    const held = watchedJobs(2);
    for (const n of ['1', '2', '3']) held.see('MODIFIED', job(`j${n}`, `u${n}`, 'Complete'));
    expect(['1', '2', '3'].map((n) => Boolean(held.finished(`j${n}`, `u${n}`, 'Succeeded')))).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('without a watch, holds nothing', () => {
    expect(NO_HELD_JOBS.finished('a', 'u1', 'Succeeded')).toBeUndefined();
  });
});
