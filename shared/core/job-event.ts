// What one change of a Job (an ApiServerSource event, the Job as data) can do
// to its run, from the event alone. Pure. Only a Job that finished or vanished
// can move a run. A Job still running changes nothing the run records: its
// step is Running, or a decision that saw it will start it. So its add and
// update events need no API call at all. A finished or deleted Job is final:
// the event's copy is the observation of its step, and only the run needs
// reading.
import type { ObservedJob } from './observed-job.ts';

export type JobChange = 'add' | 'update' | 'delete';

/**
 * - `nothing`: no read or write can follow from this event.
 * - `this-job`: read the run and decide with the event's Job as its step's
 *   observation (the run's other Jobs unknown, not gone: `partialJobs`); a
 *   deleted Job is shown gone.
 * - `all-jobs`: read the run and list its Jobs (a Job whose step the event
 *   does not tell).
 */
export type JobEventNeed = 'nothing' | 'this-job' | 'all-jobs';

export function jobEventNeed(change: JobChange, job: ObservedJob | undefined): JobEventNeed {
  if (!job) return 'all-jobs';
  return change === 'delete' || job.state !== 'Active' ? 'this-job' : 'nothing';
}

/** The event's Job as the core sees it: a deleted Job is gone (its step fails if it had not finished; no one deletes it again). */
export function shownJob(change: JobChange, job: ObservedJob): ObservedJob {
  return change === 'delete' ? { ...job, gone: true } : job;
}

/** Every event that shows this (final) observation of a Job has the same effect: one look per key is enough. */
export function finalObservationKey(job: ObservedJob): string | undefined {
  if (!job.uid) return undefined;
  // Complete or Failed after SuccessCriteriaMet or FailureTarget is news: the Job may now be deleted (cleanup.ts).
  const done = job.state !== 'Active' && job.done ? '/done' : '';
  return `${job.uid}/${job.state}${done}${job.gone && job.state === 'Active' ? '/gone' : ''}`;
}
