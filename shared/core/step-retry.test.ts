import { describe, expect, it } from 'vitest';
import type { CascadeRunStatus, ModuleRecord } from '../api/cascade-run.ts';
import type { RetryPolicy } from '../api/scenario.ts';
import { decide } from './decide.ts';
import { backoffSeconds, retriesMade } from './step-retry.ts';
import { NOW, SETTINGS, input, job, result, run } from './testing/fixtures.ts';
import type { ObservedJob } from './observed-job.ts';
import type { Decision, Fact } from './types.ts';

const ABC = ['a', 'b', 'c'];
const T0 = '2026-11-29T11:00:00.000Z';
const later = (s: number) => new Date(Date.parse(NOW) + s * 1000).toISOString();

function retrying(policy: RetryPolicy, status?: CascadeRunStatus) {
  const r = run(ABC, status);
  r.spec.cascademodules![1]!.retry = policy;
  return r;
}

function runningAt1(): CascadeRunStatus {
  const status = structuredClone(decide(input(run(ABC), [])).status);
  for (const rec of status.modules ?? []) {
    if (rec.step === 0) Object.assign(rec, { phase: 'Succeeded', startTime: T0, completionTime: T0 });
    if (rec.step === 1) Object.assign(rec, { phase: 'Running', startTime: T0 });
  }
  return { ...status, phase: 'Running', startTime: T0, currentStep: 1, currentModule: 'b' };
}

const failedJob = (attempt = 1, name?: string): ObservedJob =>
  job(ABC, 1, 'Failed', { attempt, reason: 'BackoffLimitExceeded', message: 'pods failed', ...(name ? { name } : {}) });

function step1(d: Decision): ModuleRecord {
  return d.status.modules![1]!;
}

function decideAt(
  policy: RetryPolicy,
  status: CascadeRunStatus,
  jobs: ObservedJob[],
  fact: Fact = { kind: 'Observe' },
  now = NOW,
): Decision {
  return decide(input(retrying(policy, status), jobs, fact, now));
}

const reasonOf = (d: Decision) => d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason;

describe('backoffSeconds: exponential, capped', () => {
  it.each([
    [{ limit: 5, backoffSeconds: 5, maxBackoffSeconds: 60 }, [5, 10, 20, 40, 60]],
    [{ limit: 3 }, [10, 20, 40]],
    [{ limit: 2, backoffSeconds: 0 }, [0, 0]],
    [{ limit: 3, backoffSeconds: 30, maxBackoffSeconds: 45 }, [30, 45, 45]],
  ])('%o waits %o', (policy, waits) => {
    expect(waits.map((_, i) => backoffSeconds(policy, i + 1))).toEqual(waits);
  });
});

describe('retries of a failed step', () => {
  const policy = { limit: 2, backoffSeconds: 5 };

  it('a failed Job: the step waits for its backoff as attempt 2, the run stays Running (Retrying), the old Job stays', () => {
    const d = decideAt(policy, runningAt1(), [failedJob()]);
    expect(d.status.phase).toBe('Running');
    expect(reasonOf(d)).toBe('Retrying');
    expect(step1(d)).toMatchObject({
      phase: 'Pending',
      attempt: 2,
      trigger: 'Retry',
      retryAt: later(5),
      jobName: 'cao-b-33e65-a2',
      attempts: [
        {
          attempt: 1,
          jobName: 'cao-b-33e65',
          phase: 'Failed',
          startTime: T0,
          completionTime: NOW,
          reason: 'ModuleFailed',
          trigger: 'Initial',
        },
      ],
    });
    expect(step1(d).startTime).toBeUndefined();
    // The failed Job of attempt 1 is kept until the run ends: its name stays taken.
    expect(d.actions).toEqual([]);
    expect(d.transitions.map((t) => t.kind)).toEqual(['ModuleFailed', 'ModuleRetrying']);
  });

  it('before retryAt nothing starts; at retryAt the Job of attempt 2 is created, named -a2 and labelled', () => {
    const waiting = decideAt(policy, runningAt1(), [failedJob()]).status;
    const early = decideAt(policy, waiting, [], { kind: 'Observe' }, later(4));
    expect(early.changed).toBe(false);
    expect(early.actions).toEqual([]);
    const due = decideAt(policy, waiting, [], { kind: 'Observe' }, later(5));
    const create = due.actions.find((a) => a.type === 'CreateJob');
    expect(create?.type === 'CreateJob' && create.job.metadata).toMatchObject({
      name: 'cao-b-33e65-a2',
      labels: { 'cascade.cascade.net/step': '1', 'cascade.cascade.net/attempt': '2' },
    });
    expect(step1(due)).toMatchObject({ phase: 'Running', attempt: 2, startTime: later(5) });
    expect(step1(due).retryAt).toBeUndefined();
    expect(reasonOf(due)).toBe('Running');
  });

  it('the failed Job of attempt 1 is never taken for attempt 2', () => {
    const waiting = decideAt(policy, runningAt1(), [failedJob()]).status;
    const started = decideAt(policy, waiting, [], { kind: 'Observe' }, later(5)).status;
    const d = decideAt(
      policy,
      started,
      [failedJob(1), job(ABC, 1, 'Active', { attempt: 2, name: 'cao-b-33e65-a2' })],
      { kind: 'Observe' },
      later(6),
    );
    expect(d.status.phase).toBe('Running');
    expect(step1(d)).toMatchObject({ phase: 'Running', attempt: 2 });
    expect(d.actions).toEqual([]);
  });

  it('a retry that succeeds: the step succeeds on attempt 2 and the run moves on', () => {
    const waiting = decideAt(policy, runningAt1(), [failedJob()]).status;
    const started = decideAt(policy, waiting, [], { kind: 'Observe' }, later(5)).status;
    const d = decideAt(
      policy,
      started,
      [job(ABC, 1, 'Active', { attempt: 2, name: 'cao-b-33e65-a2' })],
      result('b', 'success'),
      later(7),
    );
    expect(step1(d)).toMatchObject({ phase: 'Succeeded', attempt: 2, result: 'success' });
    expect(step1(d).attempts).toHaveLength(1);
    expect(d.actions.map((a) => a.type)).toEqual(['CreateJob']);
  });

  it('a limit exhausted: attempt 3 fails, so does the run, as without retries', () => {
    let status = decideAt(policy, runningAt1(), [failedJob()]).status;
    status = decideAt(policy, status, [], { kind: 'Observe' }, later(5)).status;
    status = decideAt(policy, status, [failedJob(2, 'cao-b-33e65-a2')], { kind: 'Observe' }, later(6)).status;
    expect(status.modules![1]).toMatchObject({ phase: 'Pending', attempt: 3, retryAt: later(16) });
    status = decideAt(policy, status, [], { kind: 'Observe' }, later(16)).status;
    const d = decideAt(policy, status, [failedJob(3, 'cao-b-33e65-a3')], { kind: 'Observe' }, later(17));
    expect(d.status.phase).toBe('Failed');
    expect(reasonOf(d)).toBe('ModuleFailed');
    expect(step1(d)).toMatchObject({ phase: 'Failed', attempt: 3, jobName: 'cao-b-33e65-a3' });
    expect(step1(d).attempts?.map((a) => [a.attempt, a.phase, a.trigger])).toEqual([
      [1, 'Failed', 'Initial'],
      [2, 'Failed', 'Retry'],
    ]);
    expect(d.actions.map((a) => a.type)).toEqual(['FinishRun']);
  });

  it('a failing module result is retried too; its redelivery during the backoff is a duplicate', () => {
    const d = decideAt(policy, runningAt1(), [job(ABC, 1, 'Active')], result('b', 'failed'));
    expect(d.verdict).toBe('applied');
    expect(step1(d)).toMatchObject({
      phase: 'Pending',
      attempt: 2,
      attempts: [{ result: 'failed', reason: 'ModuleResultFailed' }],
    });
    const again = decideAt(policy, d.status, [job(ABC, 1, 'Active')], result('b', 'failed'), later(1));
    expect(again.verdict).toBe('duplicate');
    expect(again.changed).toBe(false);
  });

  it('no backoff: the next attempt starts in the same decision', () => {
    const d = decideAt({ limit: 1, backoffSeconds: 0 }, runningAt1(), [failedJob()]);
    expect(step1(d)).toMatchObject({ phase: 'Running', attempt: 2 });
    expect(d.actions.map((a) => (a.type === 'CreateJob' ? a.job.metadata?.name : a.type))).toEqual(['cao-b-33e65-a2']);
  });

  it.each([
    ['a run past its deadline', { ...SETTINGS, runTimeoutSeconds: 60 }, [job(ABC, 1, 'Active')], 'DeadlineExceeded'],
    ['a stalled run', { ...SETTINGS, stallAfterSeconds: 60 }, [job(ABC, 1, 'Active')], 'Stalled'],
  ])('not retried: %s', (_, settings, jobs, reason) => {
    const d = decide({ ...input(retrying(policy, runningAt1()), jobs), settings });
    expect(d.status.phase).toBe('Failed');
    expect(reasonOf(d)).toBe(reason);
  });

  it('not retried: a Job the API server refuses', () => {
    const waiting = decideAt(policy, runningAt1(), [failedJob()]).status;
    const d = decide({
      ...input(retrying(policy, waiting), [], { kind: 'Observe' }, later(5)),
      refused: { step: 1, message: 'bad template' },
    });
    expect(d.status.phase).toBe('Failed');
    expect(reasonOf(d)).toBe('JobCreationFailed');
  });

  it('a wait for a backoff longer than the stall limit is no stall', () => {
    const long = { limit: 1, backoffSeconds: 600 };
    const waiting = decideAt(long, runningAt1(), [failedJob()]).status;
    const d = decide({
      ...input(retrying(long, waiting), [], { kind: 'Observe' }, later(300)),
      settings: { ...SETTINGS, stallAfterSeconds: 120 },
    });
    expect(d.status.phase).toBe('Running');
    expect(d.changed).toBe(false);
  });

  it('without a policy a failure fails the run at once', () => {
    const d = decide(input(run(ABC, runningAt1()), [failedJob()]));
    expect(d.status.phase).toBe('Failed');
  });
});

describe('retriesMade: retries since the step last started afresh', () => {
  const rec = (trigger: 'Initial' | 'Retry' | 'Resume', earlier: ('Initial' | 'Retry' | 'Resume')[]): ModuleRecord => ({
    step: 0,
    name: 'a',
    jobName: 'j',
    phase: 'Running',
    trigger,
    attempts: earlier.map((t, i) => ({ attempt: i + 1, jobName: 'j', phase: 'Failed', trigger: t })),
  });
  it.each([
    [rec('Initial', []), 0],
    [rec('Retry', ['Initial']), 1],
    [rec('Retry', ['Initial', 'Retry']), 2],
    [rec('Resume', ['Initial', 'Retry']), 0],
    [rec('Retry', ['Initial', 'Retry', 'Resume']), 1],
  ])('%#', (r, n) => {
    expect(retriesMade(r)).toBe(n);
  });
});
