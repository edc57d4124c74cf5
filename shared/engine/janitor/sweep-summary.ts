// The one line a janitor sweep reports, and the exit code it implies. Pure.
import type { Decision } from '../../core/types.ts';

export interface SweepSummary {
  /** CascadeRuns listed in the namespace. */
  runsSeen: number;
  /** Runs the sweep had to act on (reconcile or remove). */
  runsHandled: number;
  /** Runs that moved forward (a module started or finished, the run succeeded). */
  advanced: number;
  /** Runs this sweep failed, by the reason of their Succeeded condition. */
  failed: Record<string, number>;
  /** Runs whose end this sweep finished: their slot released (FinishRun). */
  finished: number;
  /** Runs whose run-end event was owed: the sweep sent it (a failure is logged, and it stays owed for the next sweep). */
  eventsOwed: number;
  /** Runs still in progress after the sweep. */
  active: number;
  orphanJobsDeleted: number;
  /** Finished runs deleted by retention (CASCADE_RETENTION_SECONDS). */
  runsRemoved: number;
  /** Jobs that remained of those runs, deleted with them. */
  jobsRemovedWithRuns: number;
  /** The CascadeAutoOperator lacked its finalizer: added. */
  finalizerAdded: boolean;
  /** The CascadeAutoOperator is being deleted and no run needs it: finalizer removed. */
  finalizerRemoved: boolean;
  /** Every error (runs, orphans, finalizer); each is logged. */
  errors: number;
  /** Runs whose handling failed (counted in `errors` too). */
  runErrors: number;
  /** Why the sweep could not do its work at all (listing failed, configuration invalid). */
  aborted?: string;
  durationMs: number;
}

export function emptySummary(): SweepSummary {
  return {
    runsSeen: 0,
    runsHandled: 0,
    advanced: 0,
    failed: {},
    finished: 0,
    eventsOwed: 0,
    active: 0,
    orphanJobsDeleted: 0,
    runsRemoved: 0,
    jobsRemovedWithRuns: 0,
    finalizerAdded: false,
    finalizerRemoved: false,
    errors: 0,
    runErrors: 0,
    durationMs: 0,
  };
}

const FORWARD = new Set(['ModuleStarted', 'ModuleSucceeded', 'RunSucceeded']);

/** Adds what one reconcile decided and wrote to the summary. */
export function tally(summary: SweepSummary, decision: Decision): void {
  const failedRun = decision.transitions.find((t) => t.kind === 'RunFailed');
  if (failedRun) {
    const reason = failedRun.reason ?? 'Unknown';
    summary.failed[reason] = (summary.failed[reason] ?? 0) + 1;
  } else if (decision.transitions.some((t) => FORWARD.has(t.kind))) {
    summary.advanced++;
  }
  if (decision.actions.some((a) => a.type === 'FinishRun')) summary.finished++;
  if (decision.actions.some((a) => a.type === 'SendRunEndEvent')) summary.eventsOwed++;
}

/**
 * 0 unless the sweep could not do its work. Either it was aborted: no list of
 * runs, or an invalid configuration. Or more than half of the runs it had to
 * handle failed: then the API server or the janitor's permissions are broken,
 * not one odd run. Fewer errors are logged and counted, and the next sweep retries.
 */
export function exitCode(summary: SweepSummary): 0 | 1 {
  if (summary.aborted !== undefined) return 1;
  return summary.runErrors * 2 > summary.runsHandled ? 1 : 0;
}
