// What the core needs to know of a Job, read from the Job object. Pure.
import type { V1Job } from '@kubernetes/client-node';
import { LABEL_RUN, LABEL_STEP } from '../names.ts';

export type JobState = 'Active' | 'Succeeded' | 'Failed';

export interface ObservedJob {
  name: string;
  run: string;
  step: number;
  state: JobState;
  reason?: string;
  message?: string;
  startTime?: string;
  completionTime?: string;
  deleting: boolean;
}

function isTrue(job: V1Job, type: string): { reason?: string; message?: string } | undefined {
  const c = job.status?.conditions?.find((x) => x.type === type && x.status === 'True');
  return c ? { reason: c.reason, message: c.message } : undefined;
}

function iso(value: Date | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * A Job counts as succeeded or failed when the Job controller says so with its
 * terminal conditions (Complete, Failed, or the earlier SuccessCriteriaMet /
 * FailureTarget). Unlike the Go controller, one failed pod of a Job that may
 * still retry (backoffLimit > 0) does not fail the run.
 */
export function observeJob(job: V1Job): ObservedJob | undefined {
  const labels = job.metadata?.labels ?? {};
  const step = Number(labels[LABEL_STEP]);
  const run = labels[LABEL_RUN];
  const name = job.metadata?.name;
  if (!name || !run || !Number.isInteger(step) || step < 0) return undefined;
  const failed = isTrue(job, 'Failed') ?? isTrue(job, 'FailureTarget');
  const succeeded = isTrue(job, 'Complete') ?? isTrue(job, 'SuccessCriteriaMet');
  const state: JobState = failed ? 'Failed' : succeeded ? 'Succeeded' : 'Active';
  return {
    name, run, step, state,
    reason: failed?.reason ?? succeeded?.reason,
    message: failed?.message ?? succeeded?.message,
    startTime: iso(job.status?.startTime ?? job.metadata?.creationTimestamp),
    completionTime: iso(job.status?.completionTime),
    deleting: Boolean(job.metadata?.deletionTimestamp),
  };
}
