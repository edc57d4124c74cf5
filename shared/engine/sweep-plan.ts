// What one janitor sweep has to do, read from what it listed. Pure: the
// questions the sweep asks about runs, Jobs and the CascadeAutoOperator; the
// acting is in sweep.ts, and every change to a run goes through reconcileRun.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun } from '../api/cascade-run.ts';
import { pendingResume } from '../core/resume.ts';
import { LABEL_RUN } from '../names.ts';
import { isDeleting, isHeld, needsOperator, withFinalizer, withoutFinalizer } from './operator-finalizer.ts';

export function isTerminalRun(run: CascadeRun): boolean {
  return isTerminalPhase(run.status?.phase);
}

/** Still to move: not ended, or ended but its end not yet counted, or its run-end event still owed, or a resume annotation not handled. A run being deleted is left alone. */
export function needsReconcile(run: CascadeRun): boolean {
  if (isDeleting(run)) return false;
  return !isTerminalRun(run) || !run.status?.notified || pendingResume(run) !== undefined;
}

/** A run in progress. */
export function isActiveRun(run: CascadeRun): boolean {
  return !isDeleting(run) && !isTerminalRun(run);
}

/**
 * Ended, counted and notified longer than `retentionSeconds` ago (0 = keep
 * forever): a run whose run-end event is owed is kept until it is sent. A run
 * with no completionTime is aged from its creation.
 */
export function isExpired(run: CascadeRun, now: Date, retentionSeconds: number): boolean {
  if (retentionSeconds <= 0 || isDeleting(run) || !isTerminalRun(run) || !run.status?.notified) return false;
  const ended = Date.parse(run.status.completionTime ?? run.metadata.creationTimestamp ?? '');
  return Number.isFinite(ended) && now.getTime() - ended > retentionSeconds * 1000;
}

export function runOfJob(job: V1Job): string | undefined {
  return job.metadata?.labels?.[LABEL_RUN] || undefined;
}

/**
 * Names of the Jobs whose run is gone or being deleted. `jobs` must have been
 * listed BEFORE `runs`: a run exists before its first Job, so a Job listed
 * first whose run is missing from the later list is truly orphaned, never a
 * Job of a run created in between.
 */
export function orphanJobs(jobs: readonly V1Job[], runs: readonly CascadeRun[]): string[] {
  const live = new Set(runs.filter((r) => !isDeleting(r)).map((r) => r.metadata.name));
  return jobs
    .filter((j) => !isDeleting(j) && j.metadata?.name)
    .filter((j) => {
      const run = runOfJob(j);
      return run !== undefined && !live.has(run);
    })
    .map((j) => j.metadata!.name!);
}

/** The Jobs listed for one run (what may remain after it is deleted). */
export function jobsOfRun(jobs: readonly V1Job[], run: string): string[] {
  return jobs.filter((j) => runOfJob(j) === run && !isDeleting(j) && j.metadata?.name).map((j) => j.metadata!.name!);
}

export type FinalizerPlan =
  | { kind: 'none' }
  | { kind: 'add'; finalizers: string[] }
  | { kind: 'wait'; active: number }
  | { kind: 'remove'; finalizers: string[] };

/**
 * An operator that lacks the finalizer gets it (one created while no run
 * started); once it is being deleted and no run needs it any more (every run
 * ended and counted), the finalizer goes, as the Go controller did on shutdown.
 * `runs` is read only for an operator being deleted.
 */
export function finalizerPlan(op: CascadeAutoOperator | undefined, runs: readonly CascadeRun[]): FinalizerPlan {
  if (!op) return { kind: 'none' };
  if (!isDeleting(op)) return isHeld(op) ? { kind: 'none' } : { kind: 'add', finalizers: withFinalizer(op) };
  if (!isHeld(op)) return { kind: 'none' };
  const active = runs.filter(needsOperator).length;
  if (active > 0) return { kind: 'wait', active };
  return { kind: 'remove', finalizers: withoutFinalizer(op) };
}
