import { describe, expect, it } from 'vitest';
import type { JobObject } from '../../core/observed-job.ts';
import { LABEL_ATTEMPT, LABEL_RUN, LABEL_STEP } from '../../names.ts';
import { madeJobs } from '../process/made-jobs.ts';
import { ownJobEvent } from './own-jobs.ts';

const job = (name: string, condition?: 'Complete' | 'Failed'): JobObject => ({
  metadata: {
    name,
    uid: `uid-${name}`,
    labels: { [LABEL_RUN]: 'run-a', [LABEL_STEP]: '1', [LABEL_ATTEMPT]: '1' },
  },
  status: condition ? { conditions: [{ type: condition, status: 'True', reason: condition }] } : {},
});

describe('ownJobEvent', () => {
  const made = madeJobs();
  made.add('mine');

  it('stands for an update event when the watch shows a Job this process made finished', () => {
    const event = ownJobEvent(made, 'MODIFIED', job('mine', 'Complete'));
    expect(event).toMatchObject({ runname: 'run-a', change: 'update', observed: { name: 'mine', state: 'Succeeded' } });
    expect(ownJobEvent(made, 'ADDED', job('mine', 'Failed'))).toMatchObject({
      change: 'add',
      observed: { state: 'Failed' },
    });
  });

  it('leaves a running Job, a deletion, and a Job another process made to their events', () => {
    expect(ownJobEvent(made, 'MODIFIED', job('mine'))).toBeUndefined();
    expect(ownJobEvent(made, 'DELETED', job('mine', 'Complete'))).toBeUndefined();
    expect(ownJobEvent(made, 'MODIFIED', job('theirs', 'Complete'))).toBeUndefined();
  });

  it('leaves a Job whose labels do not tell its step', () => {
    const unlabelled: JobObject = { ...job('mine', 'Complete'), metadata: { name: 'mine', labels: {} } };
    expect(ownJobEvent(made, 'MODIFIED', unlabelled)).toBeUndefined();
  });

  it('forgets the oldest Job past its capacity', () => {
    const few = madeJobs(2);
    for (const name of ['a', 'b', 'c']) few.add(name);
    expect(ownJobEvent(few, 'MODIFIED', job('a', 'Complete'))).toBeUndefined();
    expect(ownJobEvent(few, 'MODIFIED', job('c', 'Complete'))).toBeDefined();
  });
});
