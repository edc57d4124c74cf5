// One janitor sweep over the namespace:
// - it moves every run that events left behind, through reconcileRun, the
//   function's own load/decide/act/write loop, so the decisions are the same;
// - it deletes orphaned Jobs and expired runs;
// - it adds the CascadeAutoOperator's finalizer where it lacks it, and
//   releases it once the operator is being deleted and no run needs it.
// Every action is idempotent or guarded by resourceVersion. So two sweeps at
// once, or a sweep killed half-way, leave a state the next one decides from.
// Runs and Jobs are listed in pages of CASCADE_LIST_PAGE_SIZE. The Jobs are
// kept as a small index, and the runs handled a page at a time. Only a run
// whose listing shows something to do is read again and reconciled.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { apiErrorKind, apiMessage } from '../../kube/errors.ts';
import { eachPage } from '../../kube/pages.ts';
import type { EngineDeps } from '../deps.ts';
import { lookAgain } from '../run/look-again.ts';
import { attemptsOf, releaseOver, sweepWakes, type RunAttempts } from '../operator/admission.ts';
import { writeTally } from '../operator/counts-writer.ts';
import { runState, type RunState } from '../../core/tally.ts';
import { scenarioOf } from '../run/finish-run.ts';
import {
  countNeedingOperator,
  emptyJobIndex,
  finalizerPlan,
  type FinalizerPlan,
  indexJobs,
  isActiveRun,
  isExpired,
  type JobIndex,
  jobOutlivedCancel,
  jobsOfRun,
  movesOnLook,
  orphanJobs,
} from './sweep-plan.ts';
import { isDeleting } from '../operator/operator-finalizer.ts';
import { decideSettings } from '../run/decide-settings.ts';
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
function fail(
  deps: EngineDeps,
  s: SweepSummary,
  error: unknown,
  what: { msg: string; [field: string]: unknown },
): void {
  s.errors++;
  const { msg, ...fields } = what;
  deps.log.error({ err: error, kind: apiErrorKind(error), ...fields }, `${msg}: ${apiMessage(error)}`);
}

/** Reconciles the run if its listing shows something to do, then removes it if retention says so; returns it as it is now. */
async function handleRun(
  deps: EngineDeps,
  s: SweepSummary,
  run: CascadeRun,
  jobs: JobIndex,
): Promise<CascadeRun | undefined> {
  const name = run.metadata.name;
  let current: CascadeRun | undefined = run;
  const moves =
    jobOutlivedCancel(run, jobs) ||
    movesOnLook(run, jobs.byRun.get(name) ?? [], deps.now().toISOString(), decideSettings(deps.config, run));
  if (moves) {
    s.runsHandled++;
    const result = await lookAgain(deps, run);
    if (result.kind === 'missing') return undefined;
    if (result.kind === 'done') {
      tally(s, result.decision);
      current = result.run;
    }
  }
  if (!isExpired(current, deps.now(), deps.config.retentionSeconds)) return current;
  if (!moves) s.runsHandled++;
  await deps.store.deleteRun(name);
  s.runsRemoved++;
  // The Jobs go with their owner (garbage collector); deleting them by the run's label makes it immediate.
  const left = jobsOfRun(jobs, name);
  if (left.length > 0) await deps.store.deleteRunJobs(name);
  s.jobsRemovedWithRuns += left.length;
  deps.log.info({ run: name, jobs: left.length }, 'finished run removed by retention');
  return undefined;
}

/** What the sweep knows of the runs it went through: each handled once, even when the list starts over. */
interface RunsSeen {
  /** The index of the Jobs, listed before the runs. */
  jobs: JobIndex;
  concurrency: number;
  /** Every run handled so far (a list started over skips them). */
  handled: Set<string>;
  /** The runs listed and not being deleted: their Jobs are not orphans. */
  live: Set<string>;
  /** The scenarios of the runs listed (their slots are checked for runs gone). */
  scenarios: Set<string>;
  /** Each run listed as it is after its handling: its attempts, and its state for the counters, by scenario. */
  after: Map<string, RunAttempts>;
  states: Map<string, RunState[]>;
}

/** Records the run as the sweep leaves it, for the slots and the counters. */
function keep(deps: EngineDeps, seen: RunsSeen, run: CascadeRun): void {
  seen.after.set(run.metadata.name, attemptsOf(run));
  const scenario = scenarioOf(deps, run);
  const state = runState(run, scenario);
  if (!state) return;
  let states = seen.states.get(scenario);
  if (!states) seen.states.set(scenario, (states = []));
  states.push(state);
}

async function handlePage(deps: EngineDeps, s: SweepSummary, page: CascadeRun[], seen: RunsSeen): Promise<void> {
  const fresh = page.filter((run) => !seen.handled.has(run.metadata.name));
  for (const run of fresh) {
    seen.handled.add(run.metadata.name);
    seen.scenarios.add(scenarioOf(deps, run));
    if (!isDeleting(run)) seen.live.add(run.metadata.name);
  }
  await eachLimited(fresh, seen.concurrency, async (run) => {
    try {
      const after = await handleRun(deps, s, run, seen.jobs);
      if (after) keep(deps, seen, after);
      if (after && isActiveRun(after)) s.active++;
    } catch (error) {
      s.runErrors++;
      keep(deps, seen, run);
      if (isActiveRun(run)) s.active++;
      fail(deps, s, error, { msg: `run ${run.metadata.name} not handled`, run: run.metadata.name });
    }
  });
}

async function deleteOrphans(
  deps: EngineDeps,
  s: SweepSummary,
  jobs: JobIndex,
  live: ReadonlySet<string>,
): Promise<void> {
  await eachLimited(orphanJobs(jobs, live), 16, async (job) => {
    try {
      await deps.store.deleteJob(job);
      s.orphanJobsDeleted++;
      deps.log.info({ job }, 'orphaned Job deleted: its run is gone');
    } catch (error) {
      fail(deps, s, error, { msg: `orphaned Job ${job} not deleted`, job });
    }
  });
}

/** Writes the planned finalizers; false when someone changed the operator meanwhile (look again). */
async function writeFinalizers(
  deps: EngineDeps,
  s: SweepSummary,
  op: CascadeAutoOperator,
  plan: FinalizerPlan & { finalizers: string[] },
): Promise<boolean> {
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
  deps.log.info(
    { operator: op.metadata.name },
    plan.kind === 'add'
      ? 'finalizer added to the CascadeAutoOperator'
      : 'no run active: finalizer removed from the CascadeAutoOperator',
  );
  return true;
}

/** The runs that still need the operator, counted over a fresh paged list. */
async function countActive(deps: EngineDeps): Promise<number> {
  let active = 0;
  await eachPage(
    (request) => deps.store.pageRuns(request),
    async (page) => {
      active += countNeedingOperator(page);
    },
    {
      limit: deps.config.listPageSize,
      onRestart: () => {
        active = 0;
      },
    },
  );
  return active;
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
    const plan = finalizerPlan(op, op?.metadata.deletionTimestamp ? await countActive(deps) : 0);
    if (plan.kind === 'wait')
      deps.log.info(
        { active: plan.active },
        'CascadeAutoOperator is being deleted: finalizer kept while runs are active',
      );
    if (plan.kind === 'none' || plan.kind === 'wait' || !op) return;
    if (await writeFinalizers(deps, s, op, plan)) return;
  }
  throw new Error(
    `CascadeAutoOperator ${deps.config.scenarioName}: finalizer still conflicting after ${FINALIZER_ATTEMPTS} attempts`,
  );
}

/** Every Job of Cascade's, page by page, into the index (started afresh if the list starts over). */
async function listJobs(deps: EngineDeps): Promise<JobIndex> {
  let index = emptyJobIndex();
  await eachPage(
    (request) => deps.store.pageJobs(request),
    async (page) => indexJobs(index, page),
    {
      limit: deps.config.listPageSize,
      onRestart: () => {
        index = emptyJobIndex();
      },
    },
  );
  return index;
}

/**
 * Jobs first, runs second (see orphanJobs()): the Jobs into an index, then
 * each page of runs handled as it comes. Without both lists whole the sweep
 * cannot tell orphans: undefined (aborted, counted and logged).
 */
async function listAndHandle(deps: EngineDeps, s: SweepSummary, concurrency: number): Promise<RunsSeen | undefined> {
  const seen: RunsSeen = {
    jobs: emptyJobIndex(),
    concurrency,
    handled: new Set(),
    live: new Set(),
    scenarios: new Set([deps.config.scenarioName]),
    after: new Map(),
    states: new Map(),
  };
  try {
    const jobs = await listJobs(deps);
    seen.jobs = jobs;
    await eachPage(
      (request) => deps.store.pageRuns(request),
      (page) => handlePage(deps, s, page, seen),
      {
        limit: deps.config.listPageSize,
        onRestart: () =>
          deps.log.info({ handled: seen.handled.size }, 'list of runs expired: listed again, the runs handled skipped'),
      },
    );
    return seen;
  } catch (error) {
    s.aborted = `cannot list runs or Jobs: ${apiMessage(error)}`;
    fail(deps, s, error, { msg: 'sweep aborted' });
    return undefined;
  } finally {
    s.runsSeen = seen.handled.size;
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
  const listed = await listAndHandle(at, s, options.concurrency ?? 8);
  if (listed) {
    await releaseOver(at, listed.after, listed.scenarios).catch((error: unknown) =>
      fail(deps, s, error, { msg: 'slots of runs gone or ended not released' }),
    );
    for (const scenario of listed.scenarios)
      await writeTally(at, scenario, listed.states.get(scenario) ?? []).catch((error: unknown) =>
        fail(deps, s, error, { msg: `counters of ${scenario} not written` }),
      );
    await deleteOrphans(at, s, listed.jobs, listed.live);
    await tendFinalizer(at, s).catch((error: unknown) => fail(deps, s, error, { msg: 'finalizer not tended' }));
    await wakes.settle();
  }
  s.durationMs = Math.round(performance.now() - started);
  return s;
}
