// What the function's first sync does with each run it lists (first-sync.ts).
// Pure: the core decides each run from the run as listed and its Jobs as the
// watch of Jobs shows them, at `now`. A run is looked at again only when its
// next move is due: a step to start, a Job's end to take in, a request or a
// resume to apply, an end to count or tell, Jobs to delete. A decision that
// only records a running Job's uid is no move: that uid waits for the write
// that ends the step, so a process that starts beside busy replicas costs no
// write per running run.
import type { CascadeRun, CascadeRunStatus } from '../../api/cascade-run.ts';
import { decide } from '../../core/decide.ts';
import type { ObservedJob } from '../../core/observed-job.ts';
import { pendingRequests } from '../../core/run-requests.ts';
import { pendingResume } from '../../core/resume.ts';
import type { DecideSettings, Decision } from '../../core/types.ts';
import { jobsOutlivedRun, needsReconcile } from '../janitor/sweep-plan.ts';
import { nextRetryAt } from '../process/retry-timers.ts';

/**
 * - `start`: no status yet: its start is written (admitted or queued), then it moves.
 * - `admission`: Queued: it moves once its operator shows it holding a slot.
 * - `look`: its next move is due now: looked at again through the reconcile loop.
 * - `wake`: nothing due before a step's retry: a timer looks at it then.
 * - `none`: it waits for its Jobs, or it is over.
 */
export type SyncMove = 'start' | 'admission' | 'look' | 'wake' | 'none';

/** The status as JSON without the modules' Job uids. */
function withoutUids(status: CascadeRunStatus): string {
  return JSON.stringify({ ...status, modules: status.modules?.map((m) => ({ ...m, jobUid: undefined })) });
}

/** The decision moves the run: an action, a transition, or a status changed beyond a Job's uid recorded. */
export function moves(run: CascadeRun, decision: Decision): boolean {
  if (decision.actions.length > 0 || decision.transitions.length > 0) return true;
  return decision.changed && withoutUids(decision.status) !== withoutUids(run.status ?? {});
}

/** What the first sync does with `run`, listed with `jobs` (every Job of it the watch shows) at `now`. */
export function syncMove(
  run: CascadeRun,
  jobs: readonly ObservedJob[],
  now: string,
  settings: DecideSettings,
): SyncMove {
  if (!needsReconcile(run)) return jobsOutlivedRun(run, jobs, now, settings) ? 'look' : 'none';
  if (pendingResume(run) !== undefined || pendingRequests(run).length > 0) return 'look';
  const phase = run.status?.phase;
  if (phase === undefined) return 'start';
  if (phase === 'Queued') return 'admission';
  if (moves(run, decide({ run, jobs, fact: { kind: 'Observe' }, now, settings }))) return 'look';
  return nextRetryAt(run) === undefined ? 'none' : 'wake';
}
