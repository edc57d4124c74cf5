// A Job of Cascade's changed (ApiServerSource, or the janitor): look at its run again.
import type { IgnoredJob } from '../../core/job-identity.ts';
import { finalObservationKey, jobEventNeed, shownJob, type JobChange } from '../../core/job-event.ts';
import type { ObservedJob } from '../../core/observed-job.ts';
import type { EngineDeps } from '../deps.ts';
import { accepted, type Outcome } from './outcome.ts';
import { reconcileRun } from '../run/reconcile.ts';
import { MAKER_GRACE_MS } from '../sync/made-elsewhere.ts';

const WHY: Record<IgnoredJob['reason'], string> = {
  'unknown-name': 'its name is not the one Cascade gave its step',
  'other-uid': 'its uid is not the one Cascade recorded for its step',
  unconfirmed: 'the API server holds it otherwise than the event says',
};

/** The reply's body when the event's own Job did not count: verdict ignored, and why. */
function ignoredBody(
  run: string,
  job: ObservedJob,
  ignored: readonly IgnoredJob[],
): Record<string, unknown> | undefined {
  const mine = ignored.find((i) => i.name === job.name);
  return mine && { run, verdict: 'ignored', reason: `Job ${job.name} was not taken: ${WHY[mine.reason]}` };
}

/**
 * Reads the run and lists its Jobs, or with `shown`, takes those Jobs as the
 * only ones looked at. `claims`: the Jobs shown come from an event, to be
 * confirmed from the API server before they move the run (reconcile.ts).
 */
export async function observeRun(
  deps: EngineDeps,
  runname: string,
  shown?: readonly ObservedJob[],
  claims = false,
): Promise<Outcome> {
  const result = await reconcileRun(deps, runname, { kind: 'Observe' }, { jobs: shown, claims });
  if (result.kind === 'missing') return accepted({ run: runname, verdict: 'no such run' });
  const phase = result.decision.status.phase;
  const ignored =
    result.kind === 'done' && shown?.length === 1 ? ignoredBody(runname, shown[0]!, result.ignored) : undefined;
  return accepted(ignored ? { ...ignored, phase } : { run: runname, verdict: 'observed', phase });
}

export interface JobEvent {
  runname: string;
  change: JobChange;
  /** The event's Job as the core sees it; undefined when its labels do not tell its step. */
  observed: ObservedJob | undefined;
}

const taken = (outcome: Outcome) => outcome.kind !== 'accepted' || outcome.body.verdict !== 'ignored';

/**
 * A Job's change, decided from the event first (shared/core/job-event.ts): a
 * running Job is answered without any API call. A finished or deleted one is
 * a claim. A finished one another process made first waits for that
 * process's move (sync/made-elsewhere.ts). Else it reads the run, once per
 * Job and outcome in this process (finished-jobs.ts), and the Job itself
 * before it moves the run. One of no known step reads the run and lists its
 * Jobs.
 */
export function observeJobEvent(deps: EngineDeps, ev: JobEvent): Promise<Outcome> {
  const need = jobEventNeed(ev.change, ev.observed);
  if (need === 'nothing')
    return Promise.resolve(accepted({ run: ev.runname, verdict: 'nothing to change: the Job has not finished' }));
  if (need === 'all-jobs' || !ev.observed) return observeRun(deps, ev.runname);
  if (ev.observed.uid && deps.deletedJobs.has(ev.observed.uid))
    return Promise.resolve(accepted({ run: ev.runname, verdict: 'nothing to change: this process deleted the Job' }));
  const job = shownJob(ev.change, ev.observed);
  const work = async () => {
    const elsewhere = ev.change !== 'delete' && !deps.madeJobs.has(job.name);
    const settled = elsewhere ? await deps.madeElsewhere(job, MAKER_GRACE_MS) : undefined;
    if (settled) return accepted({ run: ev.runname, verdict: 'observed', phase: settled.status?.phase });
    return observeRun(deps, ev.runname, [job], true);
  };
  const key = finalObservationKey(job);
  return key ? deps.finishedJobs(key, work, taken) : work();
}
