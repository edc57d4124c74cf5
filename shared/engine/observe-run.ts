// A Job of Cascade's changed (ApiServerSource, or the janitor): look at its run again.
import { finalObservationKey, jobEventNeed, shownJob, type JobChange } from '../core/job-event.ts';
import type { ObservedJob } from '../core/observed-job.ts';
import type { EngineDeps } from './deps.ts';
import { accepted, type Outcome } from './outcome.ts';
import { reconcileRun } from './reconcile.ts';

/** Reads the run and lists its Jobs, or with `shown`, takes those Jobs as the only ones looked at. */
export async function observeRun(deps: EngineDeps, runname: string, shown?: readonly ObservedJob[]): Promise<Outcome> {
  const result = await reconcileRun(deps, runname, { kind: 'Observe' }, { jobs: shown });
  if (result.kind === 'missing') return accepted({ run: runname, verdict: 'no such run' });
  return accepted({ run: runname, verdict: 'observed', phase: result.decision.status.phase });
}

export interface JobEvent {
  runname: string;
  change: JobChange;
  /** The event's Job as the core sees it; undefined when its labels do not tell its step. */
  observed: ObservedJob | undefined;
}

/**
 * A Job's change, decided from the event first (shared/core/job-event.ts): a
 * running Job is answered without any API call; a finished or deleted one
 * reads only the run, once per Job and outcome in this process
 * (finished-jobs.ts); one of no known step reads the run and lists its Jobs.
 */
export function observeJobEvent(deps: EngineDeps, ev: JobEvent): Promise<Outcome> {
  const need = jobEventNeed(ev.change, ev.observed);
  if (need === 'nothing') return Promise.resolve(accepted({ run: ev.runname, verdict: 'nothing to change: the Job has not finished' }));
  if (need === 'all-jobs' || !ev.observed) return observeRun(deps, ev.runname);
  const job = shownJob(ev.change, ev.observed);
  const work = () => observeRun(deps, ev.runname, [job]);
  const key = finalObservationKey(job);
  return deps.finishedJobs && key ? deps.finishedJobs(key, work) : work();
}
