// The CascadeAutoOperator's run counters, as the Go controller kept them
// (active, succeeded, failed, result), made exactly-once: each change carries a
// key, the keys applied are kept (bounded) in the same status write, and a key
// seen before changes nothing. Pure.
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { RunPhase, TerminalPhase } from '../api/cascade-run.ts';

/**
 * `resumes`: how often the run had been resumed when it ended (an end after
 * the n-th resume is another outcome, with its own key), or the number of
 * the resume counted (it takes the run out of `from`'s counter, back to active).
 */
export type CounterChange =
  | { kind: 'started'; run: string }
  | { kind: 'ended'; run: string; phase: TerminalPhase; resumes?: number | undefined }
  | { kind: 'resumed'; run: string; from: RunPhase; resumes: number };

function endKey(run: string, resumes: number | undefined): string {
  return resumes ? `end:${run}-r${resumes}` : `end:${run}`;
}

export function counterKey(change: CounterChange): string {
  if (change.kind === 'started') return `start:${change.run}`;
  if (change.kind === 'resumed') return `resume:${change.run}-r${change.resumes}`;
  return endKey(change.run, change.resumes);
}

type Counts = Required<Pick<CascadeAutoOperatorStatus, 'active' | 'succeeded' | 'failed'>>;

function counts(status: CascadeAutoOperatorStatus | undefined): Counts {
  return { active: status?.active ?? 0, succeeded: status?.succeeded ?? 0, failed: status?.failed ?? 0 };
}

function ended(c: Counts, started: boolean, phase: TerminalPhase): Counts {
  // A run that ends before its start was counted (the start write was lost)
  // must not drive `active` below zero.
  const active = started || c.active > 0 ? Math.max(0, c.active - 1) : c.active;
  return phase === 'Succeeded' ? { ...c, active, succeeded: c.succeeded + 1 } : { ...c, active, failed: c.failed + 1 };
}

/** Where the run was counted before its resume: that counter loses it, `active` gets it back. */
function resumed(status: CascadeAutoOperatorStatus | undefined, change: Extract<CounterChange, { kind: 'resumed' }>, countedRuns: string[]): CascadeAutoOperatorStatus {
  const c = counts(status);
  const field = change.from.toLowerCase() as keyof CascadeAutoOperatorStatus;
  const before = status?.[field];
  const from = typeof before === 'number' ? { [field]: Math.max(0, before - 1) } : {};
  return { ...status, ...c, ...from, active: c.active + 1, countedRuns };
}

/**
 * A resume implies the end it undoes: counted here first when its own change
 * has not been (a crash, or a resume racing the count of the end), so that the
 * end's late change, with the same key, changes nothing.
 */
function applyResumed(status: CascadeAutoOperatorStatus | undefined, change: Extract<CounterChange, { kind: 'resumed' }>, key: string): CascadeAutoOperatorStatus {
  const end: CounterChange = { kind: 'ended', run: change.run, phase: change.from as TerminalPhase, resumes: change.resumes - 1 };
  const base = applyCounter(status, end) ?? status;
  return resumed(base, change, [...(base?.countedRuns ?? []), key].slice(-COUNTED_RUNS_MAX));
}

/** The next status, or undefined when this change was already counted. */
export function applyCounter(status: CascadeAutoOperatorStatus | undefined, change: CounterChange): CascadeAutoOperatorStatus | undefined {
  const key = counterKey(change);
  const counted = status?.countedRuns ?? [];
  if (counted.includes(key)) return undefined;
  if (change.kind === 'resumed') return applyResumed(status, change, key);
  const countedRuns = [...counted, key].slice(-COUNTED_RUNS_MAX);
  const c = counts(status);
  // A start counted after its run's end (its write was retried late) adds nothing to `active`.
  if (change.kind === 'started') return { ...status, ...c, active: counted.includes(`end:${change.run}`) ? c.active : c.active + 1, countedRuns };
  const started = counted.includes(`start:${change.run}`) || Boolean(change.resumes && counted.includes(`resume:${change.run}-r${change.resumes}`));
  const next = ended(c, started, change.phase);
  return { ...status, ...next, countedRuns, result: change.phase === 'Succeeded' ? 'Success' : 'Fail' };
}
