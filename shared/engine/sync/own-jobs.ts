// A finished Job that this process made moves its run as soon as the
// process's watch of Jobs shows it: the same work as the Job's event
// (entry/observe-run.ts), begun without waiting for the Broker. A synchronous
// Broker sends Job events one at a time, each after the last was answered, so
// under load a step would wait for the events before it. The event, when it
// comes, finds this work done or under way (process/finished-jobs.ts) and is
// answered without an API call. A Job another process made is left to its
// event: each run moves in the process that made its Job, so the cost per
// step does not grow with the replicas. Pure.
import type { JobChange } from '../../core/job-event.ts';
import { observeJob, type JobObject } from '../../core/observed-job.ts';
import type { WatchChange } from '../../kube/watch-stream.ts';
import type { JobEvent } from '../entry/observe-run.ts';
import type { MadeJobs } from '../process/made-jobs.ts';

const CHANGE: Record<WatchChange, JobChange> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };

/** The event this watch change stands for, when the change shows a Job this process made finished; else undefined. */
export function ownJobEvent(made: MadeJobs, change: WatchChange, job: JobObject): JobEvent | undefined {
  const name = job.metadata?.name;
  if (change === 'DELETED' || !name || !made.has(name)) return undefined;
  const observed = observeJob(job);
  if (!observed || observed.state === 'Active') return undefined;
  return { runname: observed.run, change: CHANGE[change], observed };
}
