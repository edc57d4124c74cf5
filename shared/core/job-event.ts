// What one change of a Job (an ApiServerSource event, the Job as data) can do
// to its run, from the event alone. Pure. Only a Job that finished or vanished
// can move a run: a Job still running changes nothing the run records (its
// step is Running, or a decision that saw it will start it), so its add and
// update events need no API call at all. A finished Job is final: the event's
// copy is the observation of its step, and only the run needs reading.
import type { ObservedJob } from './observed-job.ts';

export type JobChange = 'add' | 'update' | 'delete';

/**
 * - `nothing`: no read or write can follow from this event.
 * - `this-job`: read the run and decide with the event's Job as its step's
 *   observation (the run's other Jobs unknown, not gone: `partialJobs`).
 * - `all-jobs`: read the run and list its Jobs (a Job gone before it
 *   finished, or one whose step the event does not tell).
 */
export type JobEventNeed = 'nothing' | 'this-job' | 'all-jobs';

export function jobEventNeed(change: JobChange, job: ObservedJob | undefined): JobEventNeed {
  if (!job) return 'all-jobs';
  const finished = job.state !== 'Active';
  if (change === 'delete') return finished ? 'this-job' : 'all-jobs';
  return finished ? 'this-job' : 'nothing';
}

/** The event's Job as the core sees it: a deleted Job is going already (no one deletes it again). */
export function shownJob(change: JobChange, job: ObservedJob): ObservedJob {
  return change === 'delete' ? { ...job, deleting: true } : job;
}
