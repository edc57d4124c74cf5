import { describe, expect, it } from 'vitest';
import type { CascadeRun, CascadeRunStatus } from '../api/cascade-run.ts';
import { ANNOTATION_RESUME_REQUESTED_AT } from '../names.ts';
import { decide } from './decide.ts';
import { annotationResume, pendingResume } from './resume.ts';
import { NOW, SETTINGS, input, job, result, run } from './testing/fixtures.ts';
import type { ObservedJob } from './observed-job.ts';
import type { Decision, Fact } from './types.ts';

const ABC = ['a', 'b', 'c'];
const T0 = '2026-11-29T11:00:00.000Z';
const later = (s: number) => new Date(Date.parse(NOW) + s * 1000).toISOString();
const resume = (requestId: string): Fact => ({ kind: 'Resume', requestId });
const failedB: ObservedJob = job(ABC, 1, 'Failed', { reason: 'BackoffLimitExceeded', message: 'pods failed' });

/** The run as it ended: step b (2 of 3) failed, its slot released and notified. */
function failedAt1(): CascadeRunStatus {
  const status = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of status.modules ?? []) {
    if (rec.step === 0) Object.assign(rec, { phase: 'Succeeded', startTime: T0, completionTime: T0 });
    if (rec.step === 1) Object.assign(rec, { phase: 'Running', startTime: T0 });
  }
  const failed = decide(
    input(run(ABC, { ...status, phase: 'Running', startTime: T0 }), [failedB], { kind: 'Observe' }, T0),
  ).status;
  return { ...failed, slotReleased: true, notified: true };
}

const reasonOf = (d: Decision) => d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason;

describe('resume: a failed run goes on from its failed step', () => {
  it('steps before it are not run again; the failed step gets attempt 2 (trigger Resume), same stage address', () => {
    const d = decide(input(run(ABC, failedAt1()), [failedB], resume('ce-1')));
    expect(d.verdict).toBe('resumed');
    expect(d.status).toMatchObject({
      phase: 'Running',
      resumes: 1,
      resumedFrom: 'Failed',
      resumedAt: NOW,
      resumeRequests: ['ce-1'],
      slotReleased: false,
      counted: false,
      notified: false,
    });
    expect(d.status.completionTime).toBeUndefined();
    expect(d.status.info).toBeUndefined();
    expect(reasonOf(d)).toBe('Running');
    expect(d.status.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(d.status.modules?.[1]).toMatchObject({
      attempt: 2,
      trigger: 'Resume',
      jobName: 'cao-b-33e65-a2',
      attempts: [{ attempt: 1, phase: 'Failed', reason: 'ModuleFailed', trigger: 'Initial', jobName: 'cao-b-33e65' }],
    });
    const creates = d.actions.filter((a) => a.type === 'CreateJob');
    expect(creates.map((a) => a.step)).toEqual([1]);
    const env = creates[0]!.job.spec?.template.spec?.containers[0]?.env;
    expect(env).toContainEqual({
      name: 's3path',
      value: `${SETTINGS.outMinioAddress}${SETTINGS.scenarioName}/${run(ABC).spec.pid}/${run(ABC).spec.pid}-stage-1.zip`,
    });
    expect(d.actions.map((a) => a.type)).toEqual(['CreateJob', 'TakeResumeSlot']);
    expect(d.transitions.map((t) => t.kind)).toEqual(['RunResumed', 'ModuleStarted']);
  });

  it('the same request again, or late, changes nothing: duplicate', () => {
    const resumed = decide(input(run(ABC, failedAt1()), [failedB], resume('ce-1'))).status;
    const again = decide(
      input(
        run(ABC, resumed),
        [job(ABC, 1, 'Active', { attempt: 2, name: 'cao-b-33e65-a2' })],
        resume('ce-1'),
        later(1),
      ),
    );
    expect(again.verdict).toBe('duplicate');
    expect(again.changed).toBe(false);
    // Late: after the run failed again, the old id still resumes nothing.
    const failedAgain = decide(
      input(
        run(ABC, resumed),
        [job(ABC, 1, 'Failed', { attempt: 2, name: 'cao-b-33e65-a2' })],
        { kind: 'Observe' },
        later(2),
      ),
    ).status;
    expect(failedAgain.phase).toBe('Failed');
    const late = decide(input(run(ABC, failedAgain), [], resume('ce-1'), later(3)));
    expect(late.verdict).toBe('duplicate');
    expect(late.status.phase).toBe('Failed');
  });

  it.each([
    ['Running', () => decide(input(run(ABC), [])).status],
    ['Succeeded', () => ({ ...failedAt1(), phase: 'Succeeded' as const })],
  ])('a %s run is not resumable: nothing changes', (_, status) => {
    const d = decide(input(run(ABC, status()), [], resume('x')));
    expect(d.verdict).toBe('not-resumable');
    expect(d.status.resumeRequests).toBeUndefined();
  });

  it('a plain body without id: a redelivery during the resume is a duplicate, the same body after another failure resumes again', () => {
    const plain: Fact = { kind: 'Resume', bodyDigest: 'd1' };
    const first = decide(input(run(ABC, failedAt1()), [failedB], plain));
    expect(first.verdict).toBe('resumed');
    const redelivered = decide(input(run(ABC, first.status), [], plain, later(1)));
    expect(redelivered.verdict).toBe('duplicate');
    const failedAgain = decide(
      input(
        run(ABC, first.status),
        [job(ABC, 1, 'Failed', { attempt: 2, name: 'cao-b-33e65-a2' })],
        { kind: 'Observe' },
        later(2),
      ),
    ).status;
    const second = decide(input(run(ABC, failedAgain), [], plain, later(3)));
    expect(second.verdict).toBe('resumed');
    expect(second.status).toMatchObject({ resumes: 2, resumeRequests: ['body:d1:r0', 'body:d1:r1'] });
    expect(second.status.modules?.[1]).toMatchObject({ attempt: 3, jobName: 'cao-b-33e65-a3' });
  });

  it('a resumed run that ends owes its end again: its slot released and announced as a new outcome', () => {
    const resumed = decide(input(run(ABC, failedAt1()), [failedB], resume('ce-1'))).status;
    const given = { ...resumed, resumeSlotTaken: 1 };
    const d = decide({
      ...input(
        run(ABC, given),
        [job(ABC, 1, 'Active', { attempt: 2, name: 'cao-b-33e65-a2' })],
        result('b', 'failed'),
        later(1),
      ),
      settings: { ...SETTINGS, sink: true },
    });
    expect(d.status.phase).toBe('Failed');
    expect(d.actions.map((a) => a.type)).toEqual(['FinishRun', 'SendRunEndEvent']);
  });

  it('a resume not yet given its slot is owed it before the end', () => {
    const resumed = decide(input(run(ABC, failedAt1()), [failedB], resume('ce-1'))).status;
    const d = decide(
      input(
        run(ABC, resumed),
        [job(ABC, 1, 'Failed', { attempt: 2, name: 'cao-b-33e65-a2' })],
        { kind: 'Observe' },
        later(1),
      ),
    );
    expect(d.actions.map((a) => (a.type === 'TakeResumeSlot' ? `${a.type}:${a.resumes}` : a.type))).toEqual([
      'TakeResumeSlot:1',
      'FinishRun',
    ]);
  });

  it('the run deadline counts from the resume', () => {
    const settings = { ...SETTINGS, runTimeoutSeconds: 600 };
    const d = decide({ ...input(run(ABC, failedAt1()), [failedB], resume('ce-1'), later(3600)), settings });
    expect(d.status.phase).toBe('Running');
    const expired = decide({
      ...input(
        run(ABC, d.status),
        [job(ABC, 1, 'Active', { attempt: 2, name: 'cao-b-33e65-a2' })],
        { kind: 'Observe' },
        later(3600 + 601),
      ),
      settings,
    });
    expect(expired.status.phase).toBe('Failed');
    expect(reasonOf(expired)).toBe('DeadlineExceeded');
  });

  it('a run that failed while a retry waited resumes that attempt at once', () => {
    const status = failedAt1();
    Object.assign(status.modules![1]!, {
      phase: 'Pending',
      attempt: 2,
      trigger: 'Retry',
      retryAt: later(100),
      startTime: undefined,
      completionTime: undefined,
    });
    const d = decide(input(run(ABC, status), [], resume('r')));
    expect(d.status.modules?.[1]).toMatchObject({ phase: 'Running', attempt: 2, trigger: 'Resume' });
    expect(d.status.modules?.[1]?.retryAt).toBeUndefined();
  });
});

describe('the kubectl way: the resume-requested-at annotation', () => {
  const annotated = (status: CascadeRunStatus, value: string): CascadeRun => {
    const r = run(ABC, status);
    r.metadata.annotations = { [ANNOTATION_RESUME_REQUESTED_AT]: value };
    return r;
  };

  it('pending while it differs from the value handled last; handled once, resumed or not', () => {
    const r = annotated(failedAt1(), '2026-11-29T12:00:00Z');
    const value = pendingResume(r);
    expect(value).toBe('2026-11-29T12:00:00Z');
    const d = decide(input(r, [failedB], annotationResume(value!)));
    expect(d.verdict).toBe('resumed');
    expect(d.status.lastHandledResume).toBe(value);
    expect(pendingResume(annotated(d.status, value!))).toBeUndefined();
    const running = decide(input(annotated(d.status, 'later'), [], annotationResume('later'), later(1)));
    expect(running.verdict).toBe('not-resumable');
    expect(running.status.lastHandledResume).toBe('later');
  });

  it('no annotation, nothing pending', () => {
    expect(pendingResume(run(ABC, failedAt1()))).toBeUndefined();
  });
});
