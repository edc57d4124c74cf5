// One janitor sweep over the namespace: move every run that events left
// behind (through reconcileRun, the same load/decide/act/write loop as the
// function, so the same decisions), delete orphaned Jobs and expired runs,
// add the CascadeAutoOperator's finalizer where it lacks it and release it
// once the operator is being deleted and no run needs it. Every
// action is idempotent or guarded by resourceVersion, so two sweeps at once,
// or a sweep killed half-way, leave a state the next one decides from.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { apiErrorKind, apiMessage } from '../kube/errors.ts';
import type { EngineDeps } from './deps.ts';
import { reconcileRun } from './reconcile.ts';
import { annotationResume, pendingResume } from '../core/resume.ts';
import { admissionInSweep, releaseGone, sweepWakes } from './admission.ts';
import { finalizerPlan, type FinalizerPlan, isActiveRun, isExpired, jobsOfRun, needsReconcile, orphanJobs } from './sweep-plan.ts';
import { emptySummary, tally, type SweepSummary } from './sweep-summary.ts';

export interface SweepOptions {
  /** Runs handled at once (default 8). */
  concurrency?: number;
}

const FINALIZER_ATTEMPTS = 5;

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Counts and logs one error; the sweep goes on. */
function fail(deps: EngineDeps, s: SweepSummary, error: unknown, what: { msg: string; [field: string]: unknown }): void {
  s.errors++;
  const { msg, ...fields } = what;
  deps.log.error({ err: error, kind: apiErrorKind(error), ...fields }, `${msg}: ${apiMessage(error)}`);
}

/** Reconciles the run if it needs it, then removes it if retention says so; returns it as it is now. */
async function handleRun(deps: EngineDeps, s: SweepSummary, run: CascadeRun, jobs: readonly V1Job[]): Promise<CascadeRun | undefined> {
  const name = run.metadata.name;
  let current: CascadeRun | undefined = run;
  if (needsReconcile(run)) {
    s.runsHandled++;
    const resume = pendingResume(run);
    const result = await reconcileRun(deps, name, resume === undefined ? { kind: 'Observe' } : annotationResume(resume), { admission: await admissionInSweep(deps, run) });
    if (result.kind === 'missing') return undefined;
    if (result.kind === 'done') {
      tally(s, result.decision);
      current = result.run;
    }
  }
  if (!isExpired(current, deps.now(), deps.config.retentionSeconds)) return current;
  if (!needsReconcile(run)) s.runsHandled++;
  await deps.store.deleteRun(name);
  s.runsRemoved++;
  // The Jobs go with their owner (garbage collector); deleting what was listed makes it immediate.
  const left = jobsOfRun(jobs, name);
  await Promise.all(left.map((job) => deps.store.deleteJob(job)));
  s.jobsRemovedWithRuns += left.length;
  deps.log.info({ run: name, jobs: left.length }, 'finished run removed by retention');
  return undefined;
}

interface Listed {
  jobs: V1Job[];
  runs: CascadeRun[];
}

async function handleRuns(deps: EngineDeps, s: SweepSummary, { runs, jobs }: Listed, concurrency: number): Promise<void> {
  await eachLimited(runs, concurrency, async (run) => {
    try {
      const after = await handleRun(deps, s, run, jobs);
      if (after && isActiveRun(after)) s.active++;
    } catch (error) {
      s.runErrors++;
      if (isActiveRun(run)) s.active++;
      fail(deps, s, error, { msg: `run ${run.metadata.name} not handled`, run: run.metadata.name });
    }
  });
}

async function deleteOrphans(deps: EngineDeps, s: SweepSummary, jobs: readonly V1Job[], runs: readonly CascadeRun[]): Promise<void> {
  await Promise.all(orphanJobs(jobs, runs).map(async (job) => {
    try {
      await deps.store.deleteJob(job);
      s.orphanJobsDeleted++;
      deps.log.info({ job }, 'orphaned Job deleted: its run is gone');
    } catch (error) {
      fail(deps, s, error, { msg: `orphaned Job ${job} not deleted`, job });
    }
  }));
}

/** Writes the planned finalizers; false when someone changed the operator meanwhile (look again). */
async function writeFinalizers(deps: EngineDeps, s: SweepSummary, op: CascadeAutoOperator, plan: FinalizerPlan & { finalizers: string[] }): Promise<boolean> {
  try {
    await deps.store.writeOperatorFinalizers(op, plan.finalizers);
  } catch (error) {
    const kind = apiErrorKind(error);
    if (kind === 'not-found') return true;
    if (kind === 'conflict') return false;
    throw error;
  }
  if (plan.kind === 'add') s.finalizerAdded = true;
  else s.finalizerRemoved = true;
  deps.log.info({ operator: op.metadata.name }, plan.kind === 'add'
    ? 'finalizer added to the CascadeAutoOperator'
    : 'no run active: finalizer removed from the CascadeAutoOperator');
  return true;
}

/**
 * Adds the finalizer to an operator that lacks it; removes it from one being
 * deleted once no run needs it. Looks at the operator and the runs afresh, so
 * that a run started during the sweep holds the finalizer; every write is
 * guarded by the operator's resourceVersion (a counter written meanwhile is a
 * conflict: look again).
 */
async function tendFinalizer(deps: EngineDeps, s: SweepSummary): Promise<void> {
  for (let attempt = 1; attempt <= FINALIZER_ATTEMPTS; attempt++) {
    const op = await deps.store.getOperator(deps.config.scenarioName);
    const plan = finalizerPlan(op, op?.metadata.deletionTimestamp ? await deps.store.listRuns() : []);
    if (plan.kind === 'wait') deps.log.info({ active: plan.active }, 'CascadeAutoOperator is being deleted: finalizer kept while runs are active');
    if (plan.kind === 'none' || plan.kind === 'wait' || !op) return;
    if (await writeFinalizers(deps, s, op, plan)) return;
  }
  throw new Error(`CascadeAutoOperator ${deps.config.scenarioName}: finalizer still conflicting after ${FINALIZER_ATTEMPTS} attempts`);
}

/** Jobs first, runs second: see orphanJobs(). Without both lists the sweep cannot work. */
async function list(deps: EngineDeps, s: SweepSummary): Promise<Listed | undefined> {
  try {
    const jobs = await deps.store.listJobs();
    const runs = await deps.store.listRuns();
    return { jobs, runs };
  } catch (error) {
    s.aborted = `cannot list runs or Jobs: ${apiMessage(error)}`;
    fail(deps, s, error, { msg: 'sweep aborted' });
    return undefined;
  }
}

/**
 * One sweep at the instant `now`: every decision of this sweep is taken at
 * that time (a test or a catch-up run may pass another instant). Never throws:
 * what went wrong is counted, logged, and reported in the summary.
 */
export async function sweep(deps: EngineDeps, now: Date, options: SweepOptions = {}): Promise<SweepSummary> {
  const started = performance.now();
  const s = emptySummary();
  const wakes = sweepWakes({ ...deps, now: () => now });
  const at = wakes.deps;
  const listed = await list(deps, s);
  if (listed) {
    s.runsSeen = listed.runs.length;
    await releaseGone(at, listed.runs).catch((error: unknown) => fail(deps, s, error, { msg: 'slots of deleted runs not released' }));
    await handleRuns(at, s, listed, options.concurrency ?? 8);
    await deleteOrphans(at, s, listed.jobs, listed.runs);
    await tendFinalizer(at, s).catch((error: unknown) => fail(deps, s, error, { msg: 'finalizer not tended' }));
    await wakes.settle();
  }
  s.durationMs = Math.round(performance.now() - started);
  return s;
}
