// The CascadeAutoOperator's run counters, as the Go controller kept them
// (active, succeeded, failed, result; Cascade adds cancelled), made exactly-once: each change carries a
// key, the keys applied are kept in the same status write, and a key seen
// before changes nothing. Every key is pinned (`unmarked`) until its run's
// mark is written; only unpinned keys are dropped, oldest first, beyond
// COUNTED_RUNS_MAX (docs/architecture.md, "Counters"). Under `spec.maxConcurrentRuns` the same write
// admits a starting run or queues it, and an ending run's slot goes to the
// oldest queued run (concurrency-limit.ts). Pure.
import { COUNTED_RUNS_MAX, type CaoResult, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun, RunPhase, TerminalPhase } from '../api/cascade-run.ts';
import { admit, release } from './concurrency-limit.ts';

/**
 * `resumes`: how often the run had been resumed when it ended, or the number
 * of the resume counted. An end after the n-th resume is another outcome,
 * with its own key. A resume counted takes the run out of `from`'s counter,
 * back to active.
 */
export type CounterChange =
  | { kind: 'started'; run: string }
  /** `uid`: the run object's, when known; a writer that may meet a dropped key reads the run to tell (operator-counters.ts). */
  | { kind: 'ended'; run: string; phase: TerminalPhase; resumes?: number | undefined; uid?: string | undefined }
  | { kind: 'resumed'; run: string; from: RunPhase; resumes: number }
  /** The run is gone before its end was counted (deleted): it leaves its slot or its place in the queue. Not keyed: idempotent. */
  | { kind: 'gone'; run: string }
  /**
   * The run's mark of a change is written: that change's key is unpinned. Idempotent.
   * `of`: the change, an end by default. A start's mark is the run's first phase,
   * a resume's its `resumeCounted`, an end's its `counted`.
   */
  | { kind: 'marked'; run: string; resumes?: number | undefined; of?: MarkedChange | undefined };

/** The changes other than an end whose key is pinned until its run's mark. */
export type MarkedChange = 'start' | 'resume';

const startKey = (run: string) => `start:${run}`;
const resumeKey = (run: string, resumes: number) => `resume:${run}-r${resumes}`;

function endKey(run: string, resumes: number | undefined): string {
  return resumes ? `end:${run}-r${resumes}` : `end:${run}`;
}

export function counterKey(change: Exclude<CounterChange, { kind: 'gone' | 'marked' }>): string {
  if (change.kind === 'started') return startKey(change.run);
  if (change.kind === 'resumed') return resumeKey(change.run, change.resumes);
  return endKey(change.run, change.resumes);
}

/** The key a mark unpins. */
export function markedKey(change: Extract<CounterChange, { kind: 'marked' }>): string {
  if (change.of === 'start') return startKey(change.run);
  if (change.of === 'resume') return resumeKey(change.run, change.resumes ?? 0);
  return endKey(change.run, change.resumes);
}

type Counts = Required<Pick<CascadeAutoOperatorStatus, 'active' | 'succeeded' | 'failed' | 'cancelled'>>;

function counts(status: CascadeAutoOperatorStatus | undefined): Counts {
  return {
    active: status?.active ?? 0,
    succeeded: status?.succeeded ?? 0,
    failed: status?.failed ?? 0,
    cancelled: status?.cancelled ?? 0,
  };
}

/** The end key of an ended change (or of the outcome a mark is for). */
export function endKeyOf(change: { run: string; resumes?: number | undefined }): string {
  return endKey(change.run, change.resumes);
}

/**
 * `keys` with the oldest unpinned ones dropped until at most COUNTED_RUNS_MAX
 * unpinned are left. Pinned keys are never dropped.
 */
export function trimKeys(keys: readonly string[], pinned: readonly string[]): string[] {
  const pins = new Set(pinned);
  let excess = keys.filter((k) => !pins.has(k)).length - COUNTED_RUNS_MAX;
  if (excess <= 0) return [...keys];
  return keys.filter((k) => pins.has(k) || excess-- <= 0);
}

/** The status with `key` unpinned; undefined when it was not pinned. */
function unpin(status: CascadeAutoOperatorStatus | undefined, key: string): CascadeAutoOperatorStatus | undefined {
  const pinned = status?.unmarked ?? [];
  if (!pinned.includes(key)) return undefined;
  const unmarked = pinned.filter((k) => k !== key);
  return { ...status, unmarked, countedRuns: trimKeys(status?.countedRuns ?? [], unmarked) };
}

/** Only a run holding a slot or queued is released; with neither, nothing changes. */
function gone(
  status: CascadeAutoOperatorStatus | undefined,
  run: string,
  limit: number,
): CascadeAutoOperatorStatus | undefined {
  if (!status?.holders?.includes(run) && !status?.queue?.includes(run)) return undefined;
  return release(status, run, limit, false);
}

/** Where an ended run is counted, and the Go controller's `result` it leaves. */
const ENDED = {
  Succeeded: { counter: 'succeeded', result: 'Success' },
  Failed: { counter: 'failed', result: 'Fail' },
  Cancelled: { counter: 'cancelled', result: 'Cancelled' },
} as const satisfies Record<TerminalPhase, { counter: keyof Counts; result: CaoResult }>;

function ended(
  s: CascadeAutoOperatorStatus & Counts,
  change: { run: string; phase: TerminalPhase },
  started: boolean,
  limit: number,
): CascadeAutoOperatorStatus {
  // A run that ends before its start was counted (the start write was lost)
  // must not drive `active` below zero.
  const c = release(s, change.run, limit, started || s.active > 0);
  const { counter } = ENDED[change.phase];
  return { ...c, [counter]: s[counter] + 1 };
}

/**
 * Where the run was counted before its resume: that counter loses it, `active`
 * gets it back. Under a limit the resumed run holds a slot at once, even when
 * that puts the scenario over its limit. A resume is not queued: its Job is
 * decided with the resume. No queued run is admitted until the scenario is
 * under its limit again.
 */
function resumed(
  status: CascadeAutoOperatorStatus | undefined,
  change: Extract<CounterChange, { kind: 'resumed' }>,
  countedRuns: string[],
  limit: number,
): CascadeAutoOperatorStatus {
  const c = counts(status);
  const field = change.from.toLowerCase() as keyof CascadeAutoOperatorStatus;
  const before = status?.[field];
  const from = typeof before === 'number' ? { [field]: Math.max(0, before - 1) } : {};
  const holders = status?.holders ?? [];
  const slot = Number.isFinite(limit) && !holders.includes(change.run) ? { holders: [...holders, change.run] } : {};
  return { ...status, ...c, ...from, ...slot, active: c.active + 1, countedRuns };
}

/**
 * A resume implies the end it undoes: counted here first when its own change
 * has not been (a crash, or a resume racing the count of the end), so that the
 * end's late change, with the same key, changes nothing.
 */
function applyResumed(
  status: CascadeAutoOperatorStatus | undefined,
  change: Extract<CounterChange, { kind: 'resumed' }>,
  key: string,
  limit: number,
): CascadeAutoOperatorStatus {
  const end: CounterChange = {
    kind: 'ended',
    run: change.run,
    phase: change.from as TerminalPhase,
    resumes: change.resumes - 1,
  };
  // The resume supersedes the end: its key needs no pin (a late finisher of that end sees the resume on the run).
  const counted = applyCounter(status, end, limit) ?? status;
  const base = unpin(counted, endKeyOf(end)) ?? counted;
  const unmarked = [...(base?.unmarked ?? []), key];
  return { ...resumed(base, change, trimKeys([...(base?.countedRuns ?? []), key], unmarked), limit), unmarked };
}

/**
 * The next status, or undefined when this change was already counted.
 * `limit` is the operator's maxConcurrentRuns as read with this status
 * (concurrency-limit.ts limitOf: Infinity when unset).
 */
export function applyCounter(
  status: CascadeAutoOperatorStatus | undefined,
  change: CounterChange,
  limit = Infinity,
): CascadeAutoOperatorStatus | undefined {
  if (change.kind === 'gone') return gone(status, change.run, limit);
  if (change.kind === 'marked') return unpin(status, markedKey(change));
  const key = counterKey(change);
  if (status?.countedRuns?.includes(key)) return undefined;
  if (change.kind === 'resumed') return applyResumed(status, change, key, limit);
  if (change.kind === 'started') return applyStarted(status, change.run, key, limit);
  return applyEnded(status, change, key, limit);
}

/**
 * A start counted, its key pinned until its run's first phase is written.
 * Counted after its run's end (its write was retried late), it adds nothing to
 * `active` and takes no slot.
 */
function applyStarted(
  status: CascadeAutoOperatorStatus | undefined,
  run: string,
  key: string,
  limit: number,
): CascadeAutoOperatorStatus {
  const counted = status?.countedRuns ?? [];
  const unmarked = [...(status?.unmarked ?? []), key];
  const c = { ...status, ...counts(status), countedRuns: trimKeys([...counted, key], unmarked), unmarked };
  return counted.includes(`end:${run}`) ? c : admit(c, run, limit);
}

/** An end counted, its key pinned until its run's mark is written. */
function applyEnded(
  status: CascadeAutoOperatorStatus | undefined,
  change: Extract<CounterChange, { kind: 'ended' }>,
  key: string,
  limit: number,
): CascadeAutoOperatorStatus {
  const counted = status?.countedRuns ?? [];
  const unmarked = [...(status?.unmarked ?? []), key];
  const c = { ...status, ...counts(status), countedRuns: trimKeys([...counted, key], unmarked), unmarked };
  const started =
    counted.includes(startKey(change.run)) ||
    Boolean(change.resumes && counted.includes(resumeKey(change.run, change.resumes)));
  const next = ended(c, change, started, limit);
  return { ...next, result: ENDED[change.phase].result };
}

/**
 * Whether a key may have been dropped from `status`: only once
 * COUNTED_RUNS_MAX unpinned keys are kept, since keys leave only by trimKeys.
 */
export function mayHaveDropped(status: CascadeAutoOperatorStatus | undefined): boolean {
  const pins = new Set(status?.unmarked ?? []);
  return (status?.countedRuns ?? []).filter((k) => !pins.has(k)).length >= COUNTED_RUNS_MAX;
}

/**
 * Whether an end whose key `status` lacks may still be counted, from its run as
 * read after the operator copy the write starts from. A key is dropped only
 * after its run's mark is written, so such a read shows the mark. A run made
 * anew or resumed since is another outcome: the resume counted this end. A run
 * gone is counted, as it was before pins.
 */
export function endUncounted(change: Extract<CounterChange, { kind: 'ended' }>, run: CascadeRun | undefined): boolean {
  if (!run) return true;
  if (change.uid !== undefined && run.metadata.uid !== change.uid) return false;
  if ((run.status?.resumes ?? 0) !== (change.resumes ?? 0)) return false;
  return run.status?.counted !== true;
}

/**
 * Whether a change whose key `status` lacks may still be counted, from its run
 * read after the operator copy: the end's rule above; a start until the run
 * has a phase; a resume until the run records it counted. A run gone is counted,
 * as an end is.
 */
export function stillUncounted(
  change: Exclude<CounterChange, { kind: 'gone' | 'marked' }>,
  run: CascadeRun | undefined,
): boolean {
  if (change.kind === 'ended') return endUncounted(change, run);
  if (!run) return true;
  if (change.kind === 'started') return run.status?.phase === undefined;
  if ((run.status?.resumes ?? 0) < change.resumes) return false;
  return (run.status?.resumeCounted ?? 0) < change.resumes;
}
