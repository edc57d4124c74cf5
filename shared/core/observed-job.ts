// What the core needs to know of a Job, read from the Job object. Pure.
import { LABEL_ATTEMPT, LABEL_RUN, LABEL_STEP } from '../names.ts';

export type JobState = 'Active' | 'Succeeded' | 'Failed';

export interface ObservedJob {
  name: string;
  /** The Job object's uid, when known: tells a Job from a later one of the same name. */
  uid?: string | undefined;
  run: string;
  step: number;
  /** The attempt of its step (label cascade.cascade.net/attempt; absent: 1). */
  attempt?: number;
  state: JobState;
  reason?: string;
  message?: string;
  startTime?: string;
  completionTime?: string;
  deleting: boolean;
  /**
   * The Job controller is done with the Job: its terminal condition, Complete
   * or Failed, is set. SuccessCriteriaMet and FailureTarget come first: they
   * end the step, yet the controller still works on the Job until this is set.
   */
  done?: boolean | undefined;
  /** The Job no longer exists: this is the last copy of it, from its delete event. */
  gone?: boolean | undefined;
}

type Time = Date | string | undefined;

/** What observeJob reads of a Job: a V1Job, or an ApiServerSource event's data as events.ts checked it. */
export interface JobObject {
  metadata?:
    | {
        name?: string | undefined;
        uid?: string | undefined;
        labels?: Record<string, string | undefined> | undefined;
        creationTimestamp?: Time;
        deletionTimestamp?: Time;
      }
    | undefined;
  status?:
    | {
        conditions?:
          | ReadonlyArray<{ type: string; status: string; reason?: string | undefined; message?: string | undefined }>
          | undefined;
        startTime?: Time;
        completionTime?: Time;
      }
    | undefined;
}

function isTrue(job: JobObject, type: string): { reason?: string; message?: string } | undefined {
  const c = job.status?.conditions?.find((x) => x.type === type && x.status === 'True');
  return c ? { reason: c.reason, message: c.message } : undefined;
}

function iso(value: Time): string | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? value.toISOString() : value;
}

function identity(job: JobObject): { name: string; run: string; step: number; attempt: number } | undefined {
  const labels = job.metadata?.labels ?? {};
  const step = Number(labels[LABEL_STEP]);
  const attempt = Number(labels[LABEL_ATTEMPT] ?? '1');
  const run = labels[LABEL_RUN];
  const name = job.metadata?.name;
  if (!name || !run || !Number.isInteger(step) || step < 0 || !Number.isInteger(attempt) || attempt < 1)
    return undefined;
  return { name, run, step, attempt };
}

function outcome(job: JobObject): { state: JobState; why: { reason?: string; message?: string } } {
  const failed = isTrue(job, 'Failed') ?? isTrue(job, 'FailureTarget');
  if (failed) return { state: 'Failed', why: failed };
  const succeeded = isTrue(job, 'Complete') ?? isTrue(job, 'SuccessCriteriaMet');
  return succeeded ? { state: 'Succeeded', why: succeeded } : { state: 'Active', why: {} };
}

/**
 * A Job counts as succeeded or failed when the Job controller says so with its
 * terminal conditions (Complete, Failed, or the earlier SuccessCriteriaMet /
 * FailureTarget). Unlike the Go controller, one failed pod of a Job that may
 * still retry (backoffLimit > 0) does not fail the run.
 */
export function observeJob(job: JobObject): ObservedJob | undefined {
  const id = identity(job);
  if (!id) return undefined;
  const { state, why } = outcome(job);
  return {
    ...id,
    uid: job.metadata?.uid,
    state,
    reason: why.reason,
    message: why.message,
    startTime: iso(job.status?.startTime ?? job.metadata?.creationTimestamp),
    completionTime: iso(job.status?.completionTime),
    deleting: Boolean(job.metadata?.deletionTimestamp),
    done: Boolean(isTrue(job, 'Complete') ?? isTrue(job, 'Failed')),
  };
}
