// Which observed Jobs must go. A succeeded step's Job is deleted once the Job
// controller has finished with it. A failed run keeps the Job of its failed
// step, and a cancelled run keeps none. A Job that no step needs is removed:
// one created by a decision that lost a race, or one of an earlier attempt of
// a step retried or resumed. Pure.
import type { ObservedJob } from './observed-job.ts';
import type { Draft } from './draft.ts';

function keep(d: Draft, job: ObservedJob): boolean {
  const rec = d.records[job.step];
  if (!rec || job.run !== d.run.name) return false;
  // An earlier attempt's Job (its record is in `attempts`) is never the step's.
  if ((job.attempt ?? 1) !== (rec.attempt ?? 1)) return false;
  if (rec.phase === 'Succeeded') return false;
  if (d.status.phase === 'Succeeded' || d.status.phase === 'Cancelled') return false;
  if (d.status.phase === 'Failed') return rec.phase === 'Failed';
  return true;
}

/**
 * With only some Jobs shown (partialJobs), a step that succeeded in this very
 * decision has its Job deleted by name whether it was shown or not: it may
 * exist (a module's success result arrives while its Job still runs).
 */
function unseenSucceeded(d: Draft): { name: string; step: number; uid: string | undefined }[] {
  if (!d.input.partialJobs) return [];
  const shown = new Set(d.input.jobs.map((j) => j.step));
  return d.transitions
    .filter((t) => t.kind === 'ModuleSucceeded' && t.step !== undefined && !shown.has(t.step))
    .map((t) => ({ name: d.records[t.step!]!.jobName, step: t.step!, uid: d.records[t.step!]!.jobUid }));
}

/**
 * A finished Job goes only once the Job controller is done with it (`done`):
 * deleted at SuccessCriteriaMet, the controller would still sync it and meet
 * a 404. Its next event, which sets Complete or Failed, deletes it. A Job
 * still active that no step needs is stopped at once.
 */
function remove(d: Draft, job: ObservedJob): void {
  if (job.deleting || job.gone) return;
  if (job.state !== 'Active' && !job.done) return;
  d.actions.push({ type: 'DeleteJob', name: job.name, step: job.step, uid: job.uid });
}

export function cleanup(d: Draft): void {
  for (const job of d.input.jobs) if (!keep(d, job)) remove(d, job);
  // A Job with a step's name but another uid is never that step's.
  for (const job of d.strays) remove(d, job);
  for (const { name, step, uid } of unseenSucceeded(d)) d.actions.push({ type: 'DeleteJob', name, step, uid });
}
