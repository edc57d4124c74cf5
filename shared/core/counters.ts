// The CascadeAutoOperator's run counters, as the Go controller kept them
// (active, succeeded, failed, result), made exactly-once: each change carries a
// key, the keys applied are kept (bounded) in the same status write, and a key
// seen before changes nothing. Pure.
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { TerminalPhase } from '../api/cascade-run.ts';

export type CounterChange =
  | { kind: 'started'; run: string }
  | { kind: 'ended'; run: string; phase: TerminalPhase };

export function counterKey(change: CounterChange): string {
  return `${change.kind === 'started' ? 'start' : 'end'}:${change.run}`;
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

/** The next status, or undefined when this change was already counted. */
export function applyCounter(status: CascadeAutoOperatorStatus | undefined, change: CounterChange): CascadeAutoOperatorStatus | undefined {
  const key = counterKey(change);
  const counted = status?.countedRuns ?? [];
  if (counted.includes(key)) return undefined;
  const countedRuns = [...counted, key].slice(-COUNTED_RUNS_MAX);
  const c = counts(status);
  // A start counted after its run's end (its write was retried late) adds nothing to `active`.
  if (change.kind === 'started') return { ...status, ...c, active: counted.includes(`end:${change.run}`) ? c.active : c.active + 1, countedRuns };
  const next = ended(c, counted.includes(`start:${change.run}`), change.phase);
  return { ...status, ...next, countedRuns, result: change.phase === 'Succeeded' ? 'Success' : 'Fail' };
}
