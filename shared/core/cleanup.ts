// Which observed Jobs must go, and when. A run keeps every finished Job until
// it ends: a Job's name stays taken, so a late create of it meets "exists"
// and never runs a module twice (docs/architecture.md#one-job-per-step-attempt).
// When the run ends, its Jobs go together in one delete of the collection by
// the run's label. A failed run keeps the Job of its failed step's attempt:
// the Jobs of its earlier attempts go in a second delete.
// An active Job that no step needs is stopped at once: one created by a
// decision that lost a race, or one of an earlier attempt. Pure.
import type { ObservedJob } from './observed-job.ts';
import type { JobAttempt } from './types.ts';
import { isTerminal, type Draft } from './draft.ts';
import { isTerminalPhase } from '../api/run-status.ts';

/** The step's Job of its current attempt, in a run not ended or failed at that step. */
function needed(d: Draft, job: ObservedJob): boolean {
  const rec = d.records[job.step];
  if (!rec || job.run !== d.run.name) return false;
  // An earlier attempt's Job (its record is in `attempts`) is never the step's.
  if ((job.attempt ?? 1) !== (rec.attempt ?? 1)) return false;
  if (d.status.phase === 'Succeeded' || d.status.phase === 'Cancelled') return false;
  if (d.status.phase === 'Failed') return rec.phase === 'Failed';
  return true;
}

/** The Job that outlives its run: a failed run's failed step's attempt. */
function kept(d: Draft): JobAttempt | undefined {
  if (d.status.phase !== 'Failed') return undefined;
  const rec = d.records.find((r) => r.phase === 'Failed');
  return rec && { step: rec.step, attempt: rec.attempt ?? 1 };
}

const present = (job: ObservedJob) => !job.deleting && !job.gone;
/** Finished, yet the Job controller still works on it: deleted now, it would meet a 404. */
const finishing = (job: ObservedJob) => job.state !== 'Active' && !job.done;

/** While the run goes on: only an active Job no step needs is stopped. */
function stopStrays(d: Draft): void {
  const strays = [...d.input.jobs.filter((j) => !needed(d, j)), ...d.strays];
  for (const job of strays)
    if (present(job) && job.state === 'Active')
      d.actions.push({ type: 'DeleteJob', name: job.name, step: job.step, uid: job.uid });
}

/**
 * The run ended: its Jobs go together once the Job controller is done with
 * those seen. With only some Jobs shown (partialJobs), the decision that ends
 * the run sends the delete too, for the Jobs it did not see.
 */
function removeAll(d: Draft): void {
  const going = [...d.input.jobs.filter((j) => !needed(d, j)), ...d.strays].filter(present);
  if (going.some(finishing) && !going.some((j) => j.state === 'Active')) return;
  const endedNow = d.input.partialJobs && !isTerminalPhase(d.input.run.status?.phase);
  if (going.length === 0 && !endedNow) return;
  d.actions.push({ type: 'DeleteRunJobs', run: d.run.name, keep: kept(d) });
}

export function cleanup(d: Draft): void {
  if (isTerminal(d)) removeAll(d);
  else stopStrays(d);
}
