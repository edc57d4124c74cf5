import { describe, expect, it } from 'vitest';
import { decide } from './decide.ts';
import { jobEventNeed, shownJob, type JobChange, type JobEventNeed } from './job-event.ts';
import type { JobState } from './observed-job.ts';
import { input, job, run } from './testing/fixtures.ts';
import type { CascadeRunStatus } from '../api/cascade-run.ts';

const ABC = ['a', 'b', 'c'];

describe('jobEventNeed: what a Job change event can move', () => {
  it.each([
    ['add', 'Active', 'nothing'],
    ['update', 'Active', 'nothing'],
    ['update', 'Succeeded', 'this-job'],
    ['update', 'Failed', 'this-job'],
    ['add', 'Succeeded', 'this-job'],
    ['delete', 'Succeeded', 'this-job'],
    ['delete', 'Failed', 'this-job'],
    ['delete', 'Active', 'all-jobs'],
  ] as Array<[JobChange, JobState, JobEventNeed]>)('%s of a Job %s: %s', (change, state, need) => {
    expect(jobEventNeed(change, job(ABC, 0, state))).toBe(need);
  });

  it('a Job whose step the event does not tell: list the run\'s Jobs', () => {
    expect(jobEventNeed('update', undefined)).toBe('all-jobs');
  });

  it('a deleted Job is shown as going, so no decision deletes it again', () => {
    expect(shownJob('delete', job(ABC, 0, 'Succeeded')).deleting).toBe(true);
    expect(shownJob('update', job(ABC, 0, 'Succeeded')).deleting).toBe(false);
  });
});

function status(step: number): CascadeRunStatus {
  const s = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of s.modules ?? []) {
    if (rec.step < step) Object.assign(rec, { phase: 'Succeeded', startTime: '2026-11-29T11:00:00Z', completionTime: '2026-11-29T11:00:00Z' });
    if (rec.step === step) Object.assign(rec, { phase: 'Running', startTime: '2026-11-29T11:00:00Z' });
  }
  return { ...s, currentStep: step };
}

describe('decide with partialJobs: a Job not shown is unknown, not gone', () => {
  const partial = (st: CascadeRunStatus, shown: ReturnType<typeof job>[]) => decide({ ...input(run(ABC, st), shown), partialJobs: true });

  it('the shown Job completing starts the next step (its Job created, or adopted if it exists) and deletes the shown one', () => {
    const d = partial(status(0), [job(ABC, 0, 'Succeeded')]);
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(d.actions.map((a) => `${a.type}:${'step' in a ? a.step : ''}`)).toEqual(['CreateJob:1', 'DeleteJob:0']);
  });

  it('a running step whose Job is not shown does not fail', () => {
    const d = partial(status(1), [shownJob('delete', job(ABC, 0, 'Succeeded'))]);
    expect(d.status.phase).toBe('Running');
    expect(d.changed).toBe(false);
    expect(d.actions).toEqual([]);
  });

  it('without partialJobs the same run fails with JobMissing', () => {
    const d = decide(input(run(ABC, status(1)), [shownJob('delete', job(ABC, 0, 'Succeeded'))]));
    expect(d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason).toBe('JobMissing');
  });

  it('a shown Job of a later step still proves the earlier steps done', () => {
    const d = partial(status(0), [job(ABC, 1, 'Succeeded')]);
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Running']);
  });
});
