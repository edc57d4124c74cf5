import { describe, expect, it } from 'vitest';
import { decide } from './decide.ts';
import { finalObservationKey, jobEventNeed, shownJob, type JobChange, type JobEventNeed } from './job-event.ts';
import type { JobState } from './observed-job.ts';
import { input, job, NOW, result, run } from './testing/fixtures.ts';
import { UNSEEN_JOB_AFTER_SECONDS } from './progress.ts';
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
    ['delete', 'Active', 'this-job'],
  ] as Array<[JobChange, JobState, JobEventNeed]>)('%s of a Job %s: %s', (change, state, need) => {
    expect(jobEventNeed(change, job(ABC, 0, state))).toBe(need);
  });

  it("a Job whose step the event does not tell: list the run's Jobs", () => {
    expect(jobEventNeed('update', undefined)).toBe('all-jobs');
  });

  it('a deleted Job is shown gone', () => {
    expect(shownJob('delete', job(ABC, 0, 'Succeeded')).gone).toBe(true);
    expect(shownJob('update', job(ABC, 0, 'Succeeded')).gone).toBeUndefined();
  });

  it("one key per final observation: a finished Job's update and delete share it, a Job gone unfinished has its own", () => {
    const done = job(ABC, 0, 'Succeeded', { uid: 'u1' });
    expect(finalObservationKey(done)).toBe(finalObservationKey(shownJob('delete', done)));
    expect(finalObservationKey(shownJob('delete', job(ABC, 0, 'Active', { uid: 'u1' })))).toBe('u1/Active/gone');
    expect(finalObservationKey(job(ABC, 0, 'Succeeded'))).toBeUndefined();
  });
});

function status(step: number): CascadeRunStatus {
  const s = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of s.modules ?? []) {
    if (rec.step < step)
      Object.assign(rec, {
        phase: 'Succeeded',
        startTime: '2026-11-29T11:00:00Z',
        completionTime: '2026-11-29T11:00:00Z',
      });
    if (rec.step === step) Object.assign(rec, { phase: 'Running', startTime: '2026-11-29T11:00:00Z' });
  }
  return { ...s, currentStep: step };
}

describe('decide with partialJobs: a Job not shown is unknown, not gone', () => {
  const partial = (st: CascadeRunStatus, shown: ReturnType<typeof job>[]) =>
    decide({ ...input(run(ABC, st), shown), partialJobs: true });

  it('the shown Job completing starts the next step (its Job created, or adopted if it exists) and keeps the shown one', () => {
    const d = partial(status(0), [job(ABC, 0, 'Succeeded')]);
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(d.actions.map((a) => `${a.type}:${'step' in a ? a.step : ''}`)).toEqual(['CreateJob:1']);
  });

  it('a running step whose Job is not shown does not fail; with no uid recorded, it asks for a list of the Jobs', () => {
    const d = partial(status(1), [shownJob('delete', job(ABC, 0, 'Succeeded'))]);
    expect(d.status.phase).toBe('Running');
    expect(d.changed).toBe(false);
    expect(d.actions).toEqual([]);
    expect(d.unseenJob).toBe(1);
  });

  it("an event that shows none of the run's own Jobs asks for no list: a forged name costs nothing", () => {
    const forged = { ...job(ABC, 0, 'Succeeded'), name: 'forged-job' };
    expect(partial(status(1), [forged]).unseenJob).toBeUndefined();
    expect(partial(status(1), []).unseenJob).toBeUndefined();
  });

  it('a running step whose Job was seen once (its uid recorded) asks for no list when its Job is not shown', () => {
    const seen = status(1);
    seen.modules![1]!.jobUid = 'job-uid-1';
    const d = partial(seen, [shownJob('delete', job(ABC, 0, 'Succeeded'))]);
    expect(d.actions).toEqual([]);
    expect(d.unseenJob).toBeUndefined();
  });

  it('a step started a moment ago asks for no list: its Job is on its way, as the Complete event of the step before shows', () => {
    const st = status(1);
    st.modules![1]!.startTime = new Date(Date.parse(NOW) - 1000).toISOString();
    expect(partial(st, [job(ABC, 0, 'Succeeded')]).unseenJob).toBeUndefined();
    st.modules![1]!.startTime = new Date(Date.parse(NOW) - UNSEEN_JOB_AFTER_SECONDS * 1000).toISOString();
    expect(partial(st, [job(ABC, 0, 'Succeeded')]).unseenJob).toBe(1);
  });

  it('a step started by this very decision asks for no list: its Job is being created', () => {
    const d = partial(status(0), [job(ABC, 0, 'Succeeded')]);
    expect(d.actions.map((a) => a.type)).toContain('CreateJob');
    expect(d.unseenJob).toBeUndefined();
  });

  it('every Job listed: a started step asks for no list', () => {
    const d = decide(input(run(ABC, status(1)), [job(ABC, 0, 'Succeeded'), job(ABC, 1, 'Active')]));
    expect(d.unseenJob).toBeUndefined();
  });

  it('without partialJobs the same run fails with JobMissing once its Job was seen (its uid recorded)', () => {
    const seen = status(1);
    seen.modules![1]!.jobUid = 'job-uid-1';
    const d = decide(input(run(ABC, seen), [shownJob('delete', job(ABC, 0, 'Succeeded'))]));
    expect(d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason).toBe('JobMissing');
  });

  it('without partialJobs, a started step whose Job was never seen gets its Job asked for again, behind a status write', () => {
    const d = decide(input(run(ABC, status(1)), [shownJob('delete', job(ABC, 0, 'Succeeded'))]));
    expect(d.status.phase).toBe('Running');
    expect(d.actions.filter((a) => a.type === 'CreateJob').map((a) => a.step)).toEqual([1]);
  });

  it('a running step whose shown Job is gone before it finished fails with JobMissing', () => {
    const d = partial(status(1), [shownJob('delete', job(ABC, 1, 'Active'))]);
    expect(d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason).toBe('JobMissing');
    expect(d.actions.filter((a) => a.type === 'DeleteJob')).toEqual([]);
  });

  it('a finished Job shown gone still ends its step and the run, whose other Jobs go in one delete', () => {
    const d = partial(status(2), [shownJob('delete', job(ABC, 2, 'Succeeded'))]);
    expect(d.status.phase).toBe('Succeeded');
    expect(d.actions.map((a) => a.type)).toEqual(['DeleteRunJobs', 'FinishRun']);
    expect(d.actions.filter((a) => a.type === 'DeleteJob')).toEqual([]);
  });

  it('a pending step whose shown Job is gone unfinished gets its Job created', () => {
    const st = status(1);
    st.modules![1]!.phase = 'Pending';
    const d = partial(st, [shownJob('delete', job(ABC, 1, 'Active'))]);
    expect(d.actions.map((a) => `${a.type}:${'step' in a ? a.step : ''}`)).toEqual(['CreateJob:1']);
  });

  it("a success result with no Job shown: the next Job is created and the step's Job kept", () => {
    const d = decide({ ...input(run(ABC, status(0)), [], result('a', 'success')), partialJobs: true });
    expect(d.actions.map((a) => `${a.type}:${'step' in a ? a.step : ''}`)).toEqual(['CreateJob:1']);
  });

  it('a result for a step not recorded started, with no Job shown, is not-started (the caller lists then)', () => {
    const st = status(0);
    expect(decide({ ...input(run(ABC, st), [], result('b', 'success')), partialJobs: true }).verdict).toBe(
      'not-started',
    );
  });

  it('a shown Job of a later step still proves the earlier steps done', () => {
    const d = partial(status(0), [job(ABC, 1, 'Succeeded')]);
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Running']);
  });
});
