// The CascadeAutoOperator's run counters, as the Go controller kept them
// (active, succeeded, failed, result; Cascade adds cancelled), made exactly-once: each change carries a
// key, the keys applied are kept (bounded) in the same status write, and a key
// seen before changes nothing. Under `spec.maxConcurrentRuns` the same write
// admits a starting run or queues it, and an ending run's slot goes to the
// oldest queued run (concurrency-limit.ts). Pure.
import { COUNTED_RUNS_MAX, type CaoResult, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { RunPhase, TerminalPhase } from '../api/cascade-run.ts';
import { admit, release } from './concurrency-limit.ts';

/**
 * `resumes`: how often the run had been resumed when it ended (an end after
 * the n-th resume is another outcome, with its own key), or the number of
 * the resume counted (it takes the run out of `from`'s counter, back to active).
 */
export type CounterChange =
  | { kind: 'started'; run: string }
  | { kind: 'ended'; run: string; phase: TerminalPhase; resumes?: number | undefined }
  | { kind: 'resumed'; run: string; from: RunPhase; resumes: number }
  /** The run is gone before its end was counted (deleted): it leaves its slot or its place in the queue. Not keyed: idempotent. */
  | { kind: 'gone'; run: string };

function endKey(run: string, resumes: number | undefined): string {
  return resumes ? `end:${run}-r${resumes}` : `end:${run}`;
}

export function counterKey(change: Exclude<CounterChange, { kind: 'gone' }>): string {
  if (change.kind === 'started') return `start:${change.run}`;
  if (change.kind === 'resumed') return `resume:${change.run}-r${change.resumes}`;
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
 * that puts the scenario over its limit (a resume is not queued: its Job is
 * decided with the resume); no queued run is admitted until the scenario is
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
  const base = applyCounter(status, end, limit) ?? status;
  return resumed(base, change, [...(base?.countedRuns ?? []), key].slice(-COUNTED_RUNS_MAX), limit);
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
  const key = counterKey(change);
  const counted = status?.countedRuns ?? [];
  if (counted.includes(key)) return undefined;
  if (change.kind === 'resumed') return applyResumed(status, change, key, limit);
  const countedRuns = [...counted, key].slice(-COUNTED_RUNS_MAX);
  const c = { ...status, ...counts(status), countedRuns };
  // A start counted after its run's end (its write was retried late) adds nothing to `active` and takes no slot.
  if (change.kind === 'started') return counted.includes(`end:${change.run}`) ? c : admit(c, change.run, limit);
  const started =
    counted.includes(`start:${change.run}`) ||
    Boolean(change.resumes && counted.includes(`resume:${change.run}-r${change.resumes}`));
  const next = ended(c, change, started, limit);
  return { ...next, result: ENDED[change.phase].result };
}
