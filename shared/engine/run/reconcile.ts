// Load, decide, act, write: the one loop every entry point uses to move a run.
// A decision that creates a Job writes the status first: its resourceVersion
// refuses a stale decider before it creates any Job. A run keeps its Jobs until
// it ends, so a late create meets "exists" (docs/architecture.md#one-job-per-step-attempt).
// A crash between the status and the Job leaves a step started with no Job and
// no uid: the next look with every Job listed creates it. A status write
// conflict means someone else moved the run: reload.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { isTerminalPhase } from '../../api/run-status.ts';
import { withBothNames } from '../../api/slot-marks.ts';
import { decide } from '../../core/decide.ts';
import type { IgnoredJob } from '../../core/job-identity.ts';
import { observeJob, type ObservedJob } from '../../core/observed-job.ts';
import { onlySettledDeletes } from '../../core/settled-delete.ts';
import type { DecideInput, Decision, Fact, Refusal } from '../../core/types.ts';
import { apiErrorKind, apiMessage } from '../../kube/errors.ts';
import type { EngineDeps } from '../deps.ts';
import { confirmJobs } from './confirm-jobs.ts';
import { conflictPause } from './conflict-pause.ts';
import { decideSettings } from './decide-settings.ts';
import { finishRun, sendRunEndEvent, takeResumeSlot } from './finish-run.ts';

const MAX_ATTEMPTS = 10;

export type ReconcileResult =
  | { kind: 'missing' }
  | { kind: 'rejected'; decision: Decision }
  /** `ignored`: the Jobs shown or listed that did not count, claims the API server contradicted among them. */
  | { kind: 'done'; run: CascadeRun; decision: Decision; ignored: IgnoredJob[] };

/**
 * The run first, its Jobs after, never at once: a status records a Job's uid
 * only once that Job was seen, so a list made after reading the run shows
 * every Job that status names, until Cascade deletes it. Listed first (or
 * concurrently), a Job seen and recorded in between would look gone, failing
 * the run with JobMissing.
 */
async function load(
  deps: EngineDeps,
  name: string,
  known: CascadeRun | undefined,
  shown: readonly ObservedJob[] | undefined,
): Promise<[CascadeRun | undefined, readonly ObservedJob[]]> {
  const run = known ?? (await deps.store.getRun(name));
  if (!run) return [undefined, []];
  if (shown) return [run, shown];
  const jobs = await deps.store.listJobs(name);
  return [run, jobs.map(observeJob).filter((j): j is ObservedJob => j !== undefined)];
}

/**
 * Creates the decided Jobs, after the status that starts their steps. A Job
 * that exists already is left as it is; one made here is remembered
 * (process/made-jobs.ts). Each Job's uid is recorded by the next decision
 * that sees it. A Job the API server refuses as invalid is told to the next
 * decision.
 */
async function createJobs(deps: EngineDeps, decision: Decision): Promise<Refusal | undefined> {
  const creates = decision.actions.filter((a) => a.type === 'CreateJob');
  const results = await Promise.allSettled(creates.map((a) => deps.store.createJob(a.job)));
  for (const [i, r] of results.entries()) {
    if (r.status === 'fulfilled') {
      const name = creates[i]!.job.metadata?.name;
      if (name && r.value !== 'exists') deps.madeJobs.add(name);
      continue;
    }
    if (apiErrorKind(r.reason) === 'invalid') return { step: creates[i]!.step, message: apiMessage(r.reason) };
    throw r.reason;
  }
  return undefined;
}

/** Deletes the Jobs the decision let go, once its status is written. */
async function deleteJobs(deps: EngineDeps, decision: Decision, seen: readonly ObservedJob[]): Promise<void> {
  const deletes = decision.actions.filter((a) => a.type === 'DeleteJob');
  const ofRun = decision.actions.filter((a) => a.type === 'DeleteRunJobs');
  await Promise.all([
    ...deletes.map((a) => deps.store.deleteJob(a.name, a.uid)),
    ...ofRun.map((a) => deps.store.deleteRunJobs(a.run, a.keep)),
  ]);
  for (const { uid } of deletes) if (uid) deps.deletedJobs.add(uid);
  const keep = ofRun[0]?.keep;
  const kept = (j: ObservedJob) => j.step === keep?.step && (j.attempt ?? 1) === keep.attempt;
  if (ofRun.length > 0) for (const j of seen) if (j.uid && !kept(j)) deps.deletedJobs.add(j.uid);
}

async function afterWrite(
  deps: EngineDeps,
  run: CascadeRun,
  decision: Decision,
  seen: readonly ObservedJob[],
): Promise<CascadeRun> {
  await deleteJobs(deps, decision, seen);
  if (decision.transitions.length > 0) deps.hooks.transitions(decision.transitions, run);
  deps.wakeups.wake(run, () => reconcileRun(deps, run.metadata.name, { kind: 'Observe' }));
  const resume = decision.actions.find((a) => a.type === 'TakeResumeSlot');
  const resumed = resume ? await takeResumeSlot(deps, run, resume.resumes) : run;
  const finish = decision.actions.find((a) => a.type === 'FinishRun');
  const current = finish ? await finishRun(deps, resumed, finish.eventOwed) : resumed;
  const send = decision.actions.find((a) => a.type === 'SendRunEndEvent');
  if (send) await sendRunEndEvent(deps, current, send.phase);
  return current;
}

/** The status written; 'conflict' when someone else wrote the run meanwhile; 'gone' when it was deleted (only a cached copy can tell that so late). */
async function writeStatus(
  deps: EngineDeps,
  run: CascadeRun,
  decision: Decision,
): Promise<CascadeRun | 'conflict' | 'gone'> {
  if (!decision.changed) return run;
  try {
    return await deps.store.writeRunStatus(run, withBothNames(decision.status));
  } catch (error) {
    deps.runs.drop(run.metadata.name);
    const kind = apiErrorKind(error);
    if (kind === 'not-found') return 'gone';
    if (kind !== 'conflict') throw error;
    deps.hooks.conflict();
    return 'conflict';
  }
}

/** One log line and one hook call for each Job that did not count: never decided on, yet seen. */
function tellIgnored(deps: EngineDeps, run: string, ignored: readonly IgnoredJob[]): void {
  for (const job of ignored) {
    deps.log.warn(
      { run, job: job.name, step: job.step, reason: job.reason },
      'Job ignored: not the one Cascade created for its step',
    );
    deps.hooks.ignoredJob(job);
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
  /**
   * `jobs` are an event's claims: before a decision from them acts, the Jobs are
   * read from the API server and the run decided again from those copies.
   */
  claims?: boolean;
}

/** Moves run `name` on `first`. */
export function reconcileRun(
  deps: EngineDeps,
  name: string,
  first: Fact,
  from: ReconcileFrom = {},
): Promise<ReconcileResult> {
  const work = () => reconcile(deps, name, first, from);
  return deps.lock(name, first.kind === 'Observe' && !from.known && !from.jobs && !from.admission, work);
}

/** A finished Job's event or a module result (Jobs shown) decides from this process's last copy of the run, when it has one (run-cache.ts). */
function cachedHint(deps: EngineDeps, name: string, shown: readonly ObservedJob[] | undefined): CascadeRun | undefined {
  return shown ? deps.runs.get(name) : undefined;
}

/** Where the next attempt loads from: a hint (the caller's, or this process's cached copy, which may be stale) and the Jobs shown. */
interface Source {
  name: string;
  hint: CascadeRun | undefined;
  cached: boolean;
  shown: readonly ObservedJob[] | undefined;
  /** The Jobs shown are an event's claims, not confirmed yet. */
  claims: boolean;
  /** Claims the API server contradicted. */
  contradicted: IgnoredJob[];
  /** The Job the API server refused as invalid, told to the next decision. */
  refused: Refusal | undefined;
  /** The verdict of a decision whose status was written before its Job was refused. */
  verdict?: Decision['verdict'];
  /** 1 for the first load and decision. */
  attempt: number;
}

/** A decision acts when it writes the status or has actions: only then must the claims it rests on be confirmed. */
function acts(decision: Decision): boolean {
  return decision.changed || decision.actions.length > 0;
}

/** The claims are replaced by the API server's copies; the run just loaded is decided again, without reading it. */
async function confirmClaims(deps: EngineDeps, source: Source, run: CascadeRun): Promise<void> {
  const { jobs, contradicted } = await confirmJobs(deps, source.shown ?? []);
  source.shown = jobs;
  source.contradicted = contradicted;
  source.claims = false;
  source.hint = run;
}

/**
 * An ended copy may have been resumed, or marked owed again, by another writer
 * since the watch last showed the run: a module result that changes nothing on
 * it is decided again from the run as stored.
 */
function endedCopyIgnores(run: CascadeRun, decision: Decision, fact: Fact): boolean {
  const ignores = !decision.changed && decision.actions.length === 0;
  return fact.kind === 'ModuleResult' && isTerminalPhase(run.status?.phase) && ignores;
}

/**
 * A cached copy's decision is acted on only through a status write, guarded by
 * its resourceVersion, or when it only deletes Jobs of succeeded steps:
 * settled-delete.ts. Anything else reads the run again. True: the source is no
 * longer the cached copy.
 */
function distrusted(
  source: Source,
  run: CascadeRun,
  decision: Decision,
  why: { rejected: boolean; fact: Fact },
): boolean {
  const acting = !decision.changed && decision.actions.length > 0 && !onlySettledDeletes(run, decision);
  const distrust = source.cached && (why.rejected || acting || endedCopyIgnores(run, decision, why.fact));
  if (distrust) source.cached = false;
  return distrust;
}

/**
 * After a conflict the run is read again; the refused decision created no Job.
 * When it would have started a step, the run's Jobs are listed with it: the
 * other writer may have started that step, and only a list tells whether its
 * Job exists. A conflict of this process's own stale copy is retried at once;
 * one with another writer after a pause.
 */
async function afterConflict(source: Source, decision: Decision): Promise<void> {
  if (source.cached && decision.actions.some((a) => a.type === 'CreateJob')) source.shown = undefined;
  if (!source.cached) await conflictPause(source.attempt);
  source.cached = false;
}

/**
 * The Jobs shown left a started step's Job unknown: the run just loaded is
 * decided again, without reading it, with a list of every Job of the run. The
 * list holds the API server's copies, so no claim is left to confirm. The
 * Jobs shown that did not count are still told.
 */
function listEveryJob(source: Source, run: CascadeRun, decision: Decision): void {
  source.contradicted.push(...decision.ignoredJobs);
  source.shown = undefined;
  source.claims = false;
  source.hint = run;
}

/** One attempt's end: a result, or 'again' to load and decide once more. */
type Step = ReconcileResult | 'again';

/**
 * The status as written, or the step to take when it was not. A decision that
 * creates Jobs writes even an unchanged status: the write checks the copy's
 * resourceVersion before any Job is made.
 */
async function writeFirst(
  deps: EngineDeps,
  source: Source,
  run: CascadeRun,
  decision: Decision,
): Promise<{ written: CascadeRun } | { step: Step }> {
  const creates = decision.actions.some((a) => a.type === 'CreateJob');
  const written = await writeStatus(deps, run, { ...decision, changed: decision.changed || creates });
  if (written === 'gone') return { step: { kind: 'missing' } };
  if (written === 'conflict') {
    await afterConflict(source, decision);
    return { step: 'again' };
  }
  return { written };
}

/** Acts on a decision made with the Jobs `seen`: the status first, then its Jobs, then what follows the write. */
async function act(
  deps: EngineDeps,
  source: Source,
  [run, seen]: [CascadeRun, readonly ObservedJob[]],
  decision: Decision,
): Promise<Step> {
  const first = await writeFirst(deps, source, run, decision);
  if ('step' in first) return first.step;
  const { written } = first;
  const refusal = await createJobs(deps, decision);
  if (refusal) {
    // Told to the next decision, made from the status just written; the fact was applied by this one,
    // and the Jobs it let go are deleted now, since the next one does not decide them again.
    await deleteJobs(deps, decision, seen);
    source.refused = refusal;
    source.hint = written;
    source.cached = false;
    source.verdict = decision.verdict;
    return 'again';
  }
  const current = await afterWrite(deps, written, decision, seen);
  deps.runs.put(current);
  const ignored = [...decision.ignoredJobs, ...source.contradicted];
  tellIgnored(deps, source.name, ignored);
  return {
    kind: 'done',
    run: current,
    decision: { ...decision, verdict: source.verdict ?? decision.verdict },
    ignored,
  };
}

async function attemptOnce(
  deps: EngineDeps,
  source: Source,
  fact: Fact,
  admission: DecideInput['admission'],
): Promise<Step> {
  const [run, observed] = await load(deps, source.name, source.hint, source.shown);
  source.hint = undefined;
  if (!run) return { kind: 'missing' };
  const decision = decide({
    run,
    jobs: observed,
    fact,
    now: deps.now().toISOString(),
    settings: decideSettings(deps.config, run),
    refused: source.refused,
    admission,
    partialJobs: source.shown !== undefined,
  });
  const rejected = decision.verdict === 'unknown-module' || decision.verdict === 'not-started';
  if (distrusted(source, run, decision, { rejected, fact })) return 'again';
  if (rejected) return { kind: 'rejected', decision };
  if (decision.unseenJob !== undefined && source.shown !== undefined) {
    listEveryJob(source, run, decision);
    return 'again';
  }
  // The delete of a succeeded run's Jobs needs no read (settled-delete.ts).
  if (source.claims && acts(decision) && !onlySettledDeletes(run, decision)) {
    await confirmClaims(deps, source, run);
    return 'again';
  }
  return act(deps, source, [run, observed], decision);
}

async function reconcile(deps: EngineDeps, name: string, fact: Fact, from: ReconcileFrom): Promise<ReconcileResult> {
  const hint = from.known ?? cachedHint(deps, name, from.jobs);
  const source: Source = {
    name,
    hint,
    cached: !from.known && hint !== undefined,
    shown: from.jobs,
    claims: Boolean(from.claims) && !deps.config.trustJobEvents,
    contradicted: [],
    refused: undefined,
    attempt: 1,
  };
  for (; source.attempt <= MAX_ATTEMPTS; source.attempt++) {
    const step = await attemptOnce(deps, source, fact, from.admission);
    if (step !== 'again') return step;
  }
  throw new Error(`run ${name}: still conflicting after ${MAX_ATTEMPTS} attempts`);
}
