import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { observeJob } from './observed-job.ts';

const labels = { 'cascade.cascade.net/run': 'cao-abcde', 'cascade.cascade.net/step': '1' };
const job = (
  conditions: { type: string; status: string; reason?: string }[],
  extra: Partial<V1Job['metadata']> = {},
): V1Job => ({
  metadata: { name: 'cao-b-abcde', labels, creationTimestamp: new Date('2026-11-29T10:00:00Z'), ...extra },
  status: {
    conditions: conditions.map((c) => ({ ...c, lastTransitionTime: new Date() })),
    completionTime: new Date('2026-11-29T10:01:00Z'),
  },
});

describe('what the core sees of a Job', () => {
  it.each([
    ['running', [], 'Active', undefined],
    ['complete', [{ type: 'Complete', status: 'True' }], 'Succeeded', undefined],
    ['success criteria met, before Complete', [{ type: 'SuccessCriteriaMet', status: 'True' }], 'Succeeded', undefined],
    [
      'failed with its reason',
      [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
      'Failed',
      'BackoffLimitExceeded',
    ],
    [
      'failure target, before Failed',
      [{ type: 'FailureTarget', status: 'True', reason: 'DeadlineExceeded' }],
      'Failed',
      'DeadlineExceeded',
    ],
    ['a condition that is False', [{ type: 'Complete', status: 'False' }], 'Active', undefined],
  ])('%s', (_n, conditions, state, reason) => {
    expect(observeJob(job(conditions))).toMatchObject({
      name: 'cao-b-abcde',
      run: 'cao-abcde',
      step: 1,
      state,
      reason,
      startTime: '2026-11-29T10:00:00.000Z',
    });
  });

  it('sees a Job being deleted', () => {
    expect(observeJob(job([], { deletionTimestamp: new Date() }))?.deleting).toBe(true);
  });

  it.each([
    ['no run label', { 'cascade.cascade.net/step': '1' }],
    ['no step label', { 'cascade.cascade.net/run': 'r' }],
    ['a step that is not a number', { ...labels, 'cascade.cascade.net/step': 'x' }],
  ])('ignores a Job with %s', (_n, l) => {
    expect(observeJob({ ...job([]), metadata: { name: 'j', labels: l } })).toBeUndefined();
  });
});
