// What one janitor sweep has to do, read from what it listed. Pure: the
// questions the sweep asks about runs, Jobs and the CascadeAutoOperator; the
// acting is in sweep.ts, and every change to a run goes through reconcileRun.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun } from '../../api/cascade-run.ts';
import { decide } from '../../core/decide.ts';
import { observeJob, type ObservedJob } from '../../core/observed-job.ts';
import { pendingResume } from '../../core/resume.ts';
import type { DecideSettings } from '../../core/types.ts';
import { pendingRequests } from '../../core/run-requests.ts';
import { LABEL_RUN } from '../../names.ts';
import { isDeleting, isHeld, needsOperator, withFinalizer, withoutFinalizer } from '../operator/operator-finalizer.ts';

export function isTerminalRun(run: CascadeRun): boolean {
  return isTerminalPhase(run.status?.phase);
}

/**
 * Still to move: not ended, or ended and not yet notified (its slot not yet
 * released, or its run-end event owed), or a request in its annotations not
 * handled (its event missed). A run being deleted is left alone.
 */
export function needsReconcile(run: CascadeRun): boolean {
  if (isDeleting(run)) return false;
  return (
    !isTerminalRun(run) || !run.status?.notified || pendingRequests(run).length > 0 || pendingResume(run) !== undefined
  );
}

/** A run in progress. */
export function isActiveRun(run: CascadeRun): boolean {
  return !isDeleting(run) && !isTerminalRun(run);
}

/**
 * Ended and notified longer than `retentionSeconds` ago (0 = keep
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
 * What a sweep keeps of the Jobs it listed, page by page:
 * - a few fields of each, never the whole objects, so 10,000 Jobs cost a few MiB;
 * - the Jobs as the core observes them, grouped by run;
 * - which Jobs name a run at all.
 */
export interface JobIndex {
  /** Jobs labelled with a run and not being deleted: what orphanJobs and jobsOfRun look at. */
  named: { name: string; run: string }[];
  /** What the core sees of each run's Jobs (observeJob). */
  byRun: Map<string, ObservedJob[]>;
}

export function emptyJobIndex(): JobIndex {
  return { named: [], byRun: new Map() };
}

/** Adds one page of listed Jobs to the index. */
export function indexJobs(index: JobIndex, jobs: readonly V1Job[]): void {
  for (const job of jobs) {
    const run = runOfJob(job);
    const name = job.metadata?.name;
    if (run !== undefined && name && !isDeleting(job)) index.named.push({ name, run });
    const seen = observeJob(job);
    if (!seen) continue;
    const list = index.byRun.get(seen.run);
    if (list) list.push(seen);
    else index.byRun.set(seen.run, [seen]);
  }
}

/**
 * Names of the Jobs whose run is gone or being deleted: `live` holds the runs
 * listed and not being deleted. The Jobs must have been listed BEFORE the
 * runs. A run exists before its first Job. So a Job listed first whose run is
 * missing from the later list is truly orphaned. It is never a Job of a run
 * created in between.
 */
export function orphanJobs(jobs: JobIndex, live: ReadonlySet<string>): string[] {
  return jobs.named.filter((j) => !live.has(j.run)).map((j) => j.name);
}

/** The Jobs listed for one run (what may remain after it is deleted). */
export function jobsOfRun(jobs: JobIndex, run: string): string[] {
  return jobs.named.filter((j) => j.run === run).map((j) => j.name);
}

/**
 * Whether looking at the run again would change anything, judged from what
 * the sweep listed: a resume asked by annotation, else the core's own decision on the listed run and Jobs at
 * `now`. Only such runs are reconciled (from a fresh read); a run whose
 * listing shows nothing to do costs no request. A Job that finished after it
 * was listed is seen by the next sweep, as one that finishes after the sweep.
 */
/**
 * A cancelled run that a Job outlived: one created by a decision that lost the
 * race to the cancel, whose process died before it decided again (the Job's
 * own event removes it too). Jobs being deleted do not count.
 */
export function jobOutlivedCancel(run: CascadeRun, jobs: JobIndex): boolean {
  if (isDeleting(run) || run.status?.phase !== 'Cancelled') return false;
  return jobs.named.some((j) => j.run === run.metadata.name);
}

/** An ended run with Jobs listed that the core would delete (cleanup.ts). */
export function jobsOutlivedRun(
  run: CascadeRun,
  jobs: readonly ObservedJob[],
  now: string,
  settings: DecideSettings,
): boolean {
  if (!isTerminalRun(run) || isDeleting(run) || !jobs.some((j) => !j.deleting)) return false;
  const { actions } = decide({ run, jobs, fact: { kind: 'Observe' }, now, settings });
  return actions.some((a) => a.type === 'DeleteRunJobs' || a.type === 'DeleteJob');
}

export function movesOnLook(
  run: CascadeRun,
  jobs: readonly ObservedJob[],
  now: string,
  settings: DecideSettings,
): boolean {
  if (!needsReconcile(run)) return jobsOutlivedRun(run, jobs, now, settings);
  if (pendingResume(run) !== undefined || pendingRequests(run).length > 0) return true;
  // Not started, or waiting for a slot: admission.ts decides, with the operator in hand.
  if (run.status?.phase === undefined || run.status.phase === 'Queued') return true;
  const decision = decide({ run, jobs, fact: { kind: 'Observe' }, now, settings });
  return decision.changed || decision.actions.length > 0;
}

export type FinalizerPlan =
  | { kind: 'none' }
  | { kind: 'add'; finalizers: string[] }
  | { kind: 'wait'; active: number }
  | { kind: 'remove'; finalizers: string[] };

/** The runs of a list (a page) that still need the operator: not ended, or ended with its slot not yet released. */
export function countNeedingOperator(runs: readonly CascadeRun[]): number {
  return runs.filter(needsOperator).length;
}

/**
 * An operator that lacks the finalizer gets it: one created while no run
 * started. Once it is being deleted and no run needs it any more, the
 * finalizer goes. No run needs it once every run ended and released its slot.
 * `active` (countNeedingOperator over every run) is counted only for an
 * operator being deleted.
 */
export function finalizerPlan(op: CascadeAutoOperator | undefined, active: number): FinalizerPlan {
  if (!op) return { kind: 'none' };
  if (!isDeleting(op)) return isHeld(op) ? { kind: 'none' } : { kind: 'add', finalizers: withFinalizer(op) };
  if (!isHeld(op)) return { kind: 'none' };
  if (active > 0) return { kind: 'wait', active };
  return { kind: 'remove', finalizers: withoutFinalizer(op) };
}
