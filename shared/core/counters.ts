// The CascadeAutoOperator's run counters, as the Go controller kept them
// (active, succeeded, failed, result), made exactly-once: each change carries a
// key, the keys applied are kept (bounded) in the same status write, and a key
// seen before changes nothing. Pure.
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';

export type CounterChange =
  | { kind: 'started'; run: string }
  | { kind: 'ended'; run: string; phase: 'Succeeded' | 'Failed' };

export function counterKey(change: CounterChange): string {
  return `${change.kind === 'started' ? 'start' : 'end'}:${change.run}`;
}

/** The next status, or undefined when this change was already counted. */
export function applyCounter(status: CascadeAutoOperatorStatus | undefined, change: CounterChange): CascadeAutoOperatorStatus | undefined {
  const key = counterKey(change);
  const counted = status?.countedRuns ?? [];
  if (counted.includes(key)) return undefined;
  const next: CascadeAutoOperatorStatus = {
    ...status,
    active: status?.active ?? 0,
    succeeded: status?.succeeded ?? 0,
    failed: status?.failed ?? 0,
    countedRuns: [...counted, key].slice(-COUNTED_RUNS_MAX),
  };
  if (change.kind === 'started') {
    next.active = (next.active ?? 0) + 1;
    return next;
  }
  // A run that ends before its start was counted (the start write was lost)
  // must not drive `active` below zero.
  const started = counted.includes(`start:${change.run}`) || (next.active ?? 0) > 0;
  if (started) next.active = Math.max(0, (next.active ?? 0) - 1);
  if (change.phase === 'Succeeded') next.succeeded = (next.succeeded ?? 0) + 1;
  else next.failed = (next.failed ?? 0) + 1;
  next.result = change.phase === 'Succeeded' ? 'Success' : 'Fail';
  return next;
}
