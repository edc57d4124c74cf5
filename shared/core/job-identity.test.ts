import { describe, expect, it } from 'vitest';
import { decide } from './decide.ts';
import { sortJobs } from './job-identity.ts';
import { input, job, run, RUN } from './testing/fixtures.ts';
import type { CascadeRunStatus, ModuleRecord } from '../api/cascade-run.ts';
import type { ObservedJob } from './observed-job.ts';

const ABC = ['a', 'b', 'c'];
const T0 = '2026-11-29T11:00:00.000Z';

/** The run with step `step` running (its Job's uid recorded when given), those before it succeeded. */
function running(step: number, jobUid?: string): CascadeRunStatus {
  const status = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of status.modules ?? []) {
    if (rec.step < step) Object.assign(rec, { phase: 'Succeeded', startTime: T0, completionTime: T0 });
    if (rec.step === step) Object.assign(rec, { phase: 'Running', startTime: T0 }, jobUid ? { jobUid } : {});
  }
  return { ...status, phase: 'Running', startTime: T0, currentStep: step, currentModule: ABC[step] };
}

const records = (status: CascadeRunStatus): ModuleRecord[] => status.modules ?? [];

describe('sortJobs', () => {
  const status = running(1, 'uid-b');
  it.each<[string, ObservedJob, string]>([
    ["the step's Job by name and recorded uid", job(ABC, 1, 'Succeeded', { uid: 'uid-b' }), 'own'],
    [
      "a made-up name with the run's labels",
      job(ABC, 1, 'Succeeded', { name: 'forged', uid: 'uid-x' }),
      'unknown-name',
    ],
    [
      "another step's name for this step",
      job(ABC, 1, 'Succeeded', { name: job(ABC, 2, 'Active').name }),
      'unknown-name',
    ],
    ["another run's Job", job(ABC, 1, 'Succeeded', { run: 'other-run', uid: 'uid-b' }), 'unknown-name'],
    ['a step the run does not have', job(ABC, 7, 'Succeeded'), 'unknown-name'],
    ['an attempt the step never had', job(ABC, 1, 'Succeeded', { attempt: 2, uid: 'uid-b' }), 'unknown-name'],
    ['the right name with another uid', job(ABC, 1, 'Succeeded', { uid: 'uid-other' }), 'other-uid'],
    ['the right name with no uid: the API server\'s "gone"', job(ABC, 1, 'Active', { gone: true }), 'own'],
    ["an earlier step's Job, its uid not recorded", job(ABC, 0, 'Succeeded', { uid: 'uid-a' }), 'own'],
  ])('%s: %s', (_, observed, expected) => {
    const sorted = sortJobs(records(status), RUN, [observed]);
    const got = sorted.own.length === 1 ? 'own' : sorted.ignored[0]?.reason;
    expect(got).toBe(expected);
    expect(sorted.strays).toEqual(expected === 'other-uid' ? [observed] : []);
  });

  it("takes an earlier attempt's Job by the name archived for that attempt", () => {
    const status = running(1);
    const rec = records(status)[1]!;
    const first = rec.jobName;
    Object.assign(rec, {
      attempt: 2,
      jobName: `${first}-a2`,
      attempts: [{ attempt: 1, jobName: first, phase: 'Failed', trigger: 'Initial' }],
    });
    expect(sortJobs(records(status), RUN, [job(ABC, 1, 'Failed', { attempt: 1 })]).own).toHaveLength(1);
    expect(
      sortJobs(records(status), RUN, [job(ABC, 1, 'Active', { attempt: 2, name: `${first}-a2` })]).own,
    ).toHaveLength(1);
    expect(sortJobs(records(status), RUN, [job(ABC, 1, 'Active', { attempt: 2 })]).ignored[0]?.reason).toBe(
      'unknown-name',
    );
  });
});

describe("decide with Jobs that are not the run's own", () => {
  it("a finished Job with the run's labels and a made-up name moves nothing and is not deleted", () => {
    const forged = job(ABC, 0, 'Succeeded', { name: 'forged-a', uid: 'uid-forged' });
    const d = decide({ ...input(run(ABC, running(0, 'uid-a')), [forged]), partialJobs: true });
    expect(d.changed).toBe(false);
    expect(d.actions).toEqual([]);
    expect(d.ignoredJobs).toEqual([{ name: 'forged-a', step: 0, reason: 'unknown-name' }]);
  });

  it("the step's name with another uid than recorded moves nothing, and is kept until the run ends", () => {
    const other = job(ABC, 0, 'Succeeded', { uid: 'uid-later' });
    const d = decide({ ...input(run(ABC, running(0, 'uid-a')), [other]), partialJobs: true });
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending', 'Pending']);
    expect(d.actions).toEqual([]);
    expect(d.ignoredJobs).toEqual([{ name: other.name, step: 0, reason: 'other-uid' }]);
  });

  it("the step's Job with the recorded uid moves the run", () => {
    const own = job(ABC, 0, 'Succeeded', { uid: 'uid-a' });
    const d = decide({ ...input(run(ABC, running(0, 'uid-a')), [own]), partialJobs: true });
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(d.ignoredJobs).toEqual([]);
  });

  it('a forged Job of a later step does not adopt the steps before it', () => {
    const forged = job(ABC, 2, 'Active', { name: 'forged-c' });
    const d = decide(input(run(ABC, running(0, 'uid-a')), [job(ABC, 0, 'Active', { uid: 'uid-a' }), forged]));
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending', 'Pending']);
    expect(d.changed).toBe(false);
  });
});

describe("the uid of a step's Job", () => {
  it("is recorded when the step's Job is seen and none was recorded", () => {
    const d = decide(input(run(ABC, running(0)), [job(ABC, 0, 'Active', { uid: 'uid-a' })]));
    expect(d.status.modules?.[0]?.jobUid).toBe('uid-a');
  });

  it('is dropped when the step starts another attempt', () => {
    const failedJob = job(ABC, 0, 'Failed', { uid: 'uid-a', reason: 'BackoffLimitExceeded' });
    const r = run(ABC, running(0, 'uid-a'));
    r.spec.cascademodules![0]!.retry = { limit: 1, backoffSeconds: 0 };
    const d = decide(input(r, [failedJob]));
    const rec = d.status.modules?.[0];
    expect(rec?.attempt).toBe(2);
    expect(rec?.jobUid).toBeUndefined();
  });
});
