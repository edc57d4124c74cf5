// Load, decide, act, write: the one loop every entry point uses to move a run.
// Jobs are created before the status that records them is written, so that a
// crash at any point leaves a state the next delivery (or the janitor) decides
// from again; a status write conflict means someone else moved the run: reload.
import type { CascadeRun } from '../api/cascade-run.ts';
import { decide } from '../core/decide.ts';
import { observeJob, type ObservedJob } from '../core/observed-job.ts';
import type { Action, DecideInput, Decision, Fact, Refusal } from '../core/types.ts';
import { apiErrorKind, apiMessage } from '../kube/errors.ts';
import type { EngineDeps } from './deps.ts';
import { conflictPause } from './conflict-pause.ts';
import { decideSettings } from './decide-settings.ts';
import { countResume, finishRun, sendRunEndEvent } from './finish-run.ts';
import { wakeForRetry } from './retry-wake.ts';

const MAX_ATTEMPTS = 10;

export type ReconcileResult =
  | { kind: 'missing' }
  | { kind: 'rejected'; decision: Decision }
  | { kind: 'done'; run: CascadeRun; decision: Decision };

/**
 * The run first, its Jobs after, never at once: Jobs are created before the
 * status that records them is written, so a list made after reading the run
 * shows every Job that status names. Listed first (or concurrently), a Job
 * created and recorded in between would look gone, failing the run with
 * JobMissing.
 */
async function load(deps: EngineDeps, name: string, known: CascadeRun | undefined, shown: readonly ObservedJob[] | undefined): Promise<[CascadeRun | undefined, readonly ObservedJob[]]> {
  const run = known ?? await deps.store.getRun(name);
  if (!run) return [undefined, []];
  if (shown) return [run, shown];
  const jobs = await deps.store.listJobs(name);
  return [run, jobs.map(observeJob).filter((j): j is ObservedJob => j !== undefined)];
}

/** A run's Jobs and archive paths are named after the scenario it was started under (spec.scenarioname). */
/** Creates the decided Jobs; a Job the API server refuses as invalid is told to the next decision. */
async function createJobs(deps: EngineDeps, actions: Action[]): Promise<Refusal | undefined> {
  const creates = actions.filter((a) => a.type === 'CreateJob');
  const results = await Promise.allSettled(creates.map((a) => deps.store.createJob(a.job)));
  for (const [i, r] of results.entries()) {
    if (r.status === 'fulfilled') continue;
    if (apiErrorKind(r.reason) === 'invalid') return { step: creates[i]!.step, message: apiMessage(r.reason) };
    throw r.reason;
  }
  return undefined;
}

async function afterWrite(deps: EngineDeps, run: CascadeRun, decision: Decision): Promise<CascadeRun> {
  const deletes = decision.actions.filter((a) => a.type === 'DeleteJob');
  await Promise.all(deletes.map((a) => deps.store.deleteJob(a.name)));
  if (decision.transitions.length > 0) deps.hooks?.transitions?.(decision.transitions, run);
  wakeForRetry(deps, run, () => reconcileRun(deps, run.metadata.name, { kind: 'Observe' }));
  const resume = decision.actions.find((a) => a.type === 'CountResume');
  const resumed = resume ? await countResume(deps, run, resume.from, resume.resumes) : run;
  const finish = decision.actions.find((a) => a.type === 'FinishRun');
  const current = finish ? await finishRun(deps, resumed, finish.phase, finish.eventOwed) : resumed;
  const send = decision.actions.find((a) => a.type === 'SendRunEndEvent');
  if (send) await sendRunEndEvent(deps, current, send.phase);
  return current;
}

/** The status written; 'conflict' when someone else wrote the run meanwhile; 'gone' when it was deleted (only a cached copy can tell that so late). */
async function writeStatus(deps: EngineDeps, run: CascadeRun, decision: Decision): Promise<CascadeRun | 'conflict' | 'gone'> {
  if (!decision.changed) return run;
  try {
    return await deps.store.writeRunStatus(run, decision.status);
  } catch (error) {
    deps.runs?.drop(run.metadata.name);
    const kind = apiErrorKind(error);
    if (kind === 'not-found') return 'gone';
    if (kind !== 'conflict') throw error;
    deps.hooks?.conflict?.();
    return 'conflict';
  }
}

export interface ReconcileFrom {
  /** The run as the caller just got it from the API server (the reply to its creation): it spares the first read. */
  known?: CascadeRun | undefined;
  /**
   * The Jobs an event showed (finished, so final), looked at instead of a list
   * of the run's Jobs; the run's other Jobs are unknown, not gone.
   */
  jobs?: readonly ObservedJob[] | undefined;
  /** What the scenario's concurrency limit says of a run not started yet (admission.ts). */
  admission?: DecideInput['admission'];
}

/** Moves run `name` on `first`. */
export function reconcileRun(deps: EngineDeps, name: string, first: Fact, from: ReconcileFrom = {}): Promise<ReconcileResult> {
  const work = () => reconcile(deps, name, first, from);
  return deps.queue ? deps.queue(name, first.kind === 'Observe' && !from.known && !from.jobs && !from.admission, work) : work();
}

/** A finished Job's event or a module result (Jobs shown) decides from this process's last copy of the run, when it has one (run-cache.ts). */
function cachedHint(deps: EngineDeps, name: string, shown: readonly ObservedJob[] | undefined): CascadeRun | undefined {
  return shown ? deps.runs?.get(name) : undefined;
}

/** Where the next attempt loads from: a hint (the caller's, or this process's cached copy, which may be stale) and the Jobs shown. */
interface Source {
  name: string;
  hint: CascadeRun | undefined;
  cached: boolean;
  shown: readonly ObservedJob[] | undefined;
}

/**
 * A cached copy's decision is acted on only through a status write (guarded by
 * its resourceVersion): anything else reads the run again (true: the source
 * is no longer the cached copy).
 */
function distrusted(source: Source, decision: Decision, rejected: boolean): boolean {
  const distrust = source.cached && (rejected || (!decision.changed && decision.actions.length > 0));
  if (distrust) source.cached = false;
  return distrust;
}

/**
 * After a conflict the run is read again. Jobs a stale copy decided are listed
 * with it, so that a decision they should not have made (the run moved on, or
 * was cancelled) removes them. A conflict of this process's own stale copy is
 * retried at once; one with another writer after a pause.
 */
async function afterConflict(source: Source, decision: Decision, attempt: number): Promise<void> {
  if (source.cached && decision.actions.some((a) => a.type === 'CreateJob')) source.shown = undefined;
  if (!source.cached) await conflictPause(attempt);
  source.cached = false;
}

async function reconcile(deps: EngineDeps, name: string, fact: Fact, { known, jobs, admission }: ReconcileFrom): Promise<ReconcileResult> {
  let refused: Refusal | undefined;
  const hint = known ?? cachedHint(deps, name, jobs);
  const source: Source = { name, hint, cached: !known && hint !== undefined, shown: jobs };
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const [run, observed] = await load(deps, name, source.hint, source.shown);
    source.hint = undefined;
    if (!run) return { kind: 'missing' };
    const decision = decide({ run, jobs: observed, fact, now: deps.now().toISOString(), settings: decideSettings(deps.config, run), refused, admission, partialJobs: source.shown !== undefined });
    const rejected = decision.verdict === 'unknown-module' || decision.verdict === 'not-started';
    if (distrusted(source, decision, rejected)) continue;
    if (rejected) return { kind: 'rejected', decision };
    const refusal = await createJobs(deps, decision.actions);
    if (refusal) {
      refused = refusal;
      continue;
    }
    const written = await writeStatus(deps, run, decision);
    if (written === 'gone') return { kind: 'missing' };
    if (written === 'conflict') {
      await afterConflict(source, decision, attempt);
      continue;
    }
    const current = await afterWrite(deps, written, decision);
    deps.runs?.put(current);
    return { kind: 'done', run: current, decision };
  }
  throw new Error(`run ${name}: still conflicting after ${MAX_ATTEMPTS} attempts`);
}
