// The concurrency limit of a scenario (`spec.maxConcurrentRuns`) as a holder
// list and a FIFO queue in its CascadeAutoOperator's status. Only the counter
// writes (counters.ts) change them, and they carry the operator's
// resourceVersion. So admission is a compare-and-swap on the API server, never
// a count in memory: two replicas, a redelivery or a crash between two writes
// cannot admit a run twice or one too many. Pure.
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';

/** Where a run stands: holds a slot (or runs without a limit), waits in the queue, or its start is not counted yet. */
export type Admission = 'admitted' | 'queued' | 'unknown';

type Lists = Pick<CascadeAutoOperatorStatus, 'active' | 'queued' | 'holders' | 'queue'>;

/** Unset, or not a positive integer: no limit. */
export function limitOf(maxConcurrentRuns: number | undefined): number {
  return maxConcurrentRuns !== undefined && Number.isInteger(maxConcurrentRuns) && maxConcurrentRuns > 0
    ? maxConcurrentRuns
    : Infinity;
}

export function admissionOf(status: CascadeAutoOperatorStatus | undefined, run: string): Admission {
  if (status?.holders?.includes(run)) return 'admitted';
  if (status?.queue?.includes(run)) return 'queued';
  return status?.countedRuns?.includes(`start:${run}`) ? 'admitted' : 'unknown';
}

/** Oldest first: queued runs take free slots (all of them when there is no limit). */
function promote<S extends Lists>(s: S, limit: number): S {
  const queue = s.queue ?? [];
  if (queue.length === 0) return s;
  const holders = s.holders ?? [];
  const room = Math.max(0, limit - holders.length);
  const moved = queue.slice(0, room);
  if (moved.length === 0) return s;
  const next = { ...s, queue: queue.slice(moved.length), active: (s.active ?? 0) + moved.length };
  return limit === Infinity ? next : { ...next, holders: [...holders, ...moved] };
}

function withQueued<S extends Lists>(s: S): S {
  return s.queue === undefined ? s : { ...s, queued: s.queue.length };
}

/**
 * A run's start, counted: it takes a slot when one is free and no run waits
 * before it, else joins the end of the queue. Without a limit it is active at
 * once. `active` of the result is already counted.
 */
export function admit<S extends Lists>(s: S, run: string, limit: number): S {
  const holders = s.holders ?? [];
  const queue = s.queue ?? [];
  if (holders.includes(run) || queue.includes(run)) return s;
  if (limit === Infinity && queue.length === 0) return { ...s, active: (s.active ?? 0) + 1 };
  if (queue.length === 0 && holders.length < limit)
    return { ...s, holders: [...holders, run], active: (s.active ?? 0) + 1 };
  return withQueued(promote({ ...s, queue: [...queue, run] }, limit));
}

/**
 * A run leaves its slot or its place in the queue (it ended, or is gone) and
 * the oldest queued runs take the free slots. `wasActive` says whether the
 * run counts in `active` when it holds no slot (a run without a limit).
 */
export function release<S extends Lists>(s: S, run: string, limit: number, wasActive: boolean): S {
  let next = s;
  if (s.queue?.includes(run)) next = { ...s, queue: s.queue.filter((r) => r !== run) };
  else if (s.holders?.includes(run))
    next = { ...s, holders: s.holders.filter((r) => r !== run), active: Math.max(0, (s.active ?? 0) - 1) };
  else if (wasActive) next = { ...s, active: Math.max(0, (s.active ?? 0) - 1) };
  return withQueued(promote(next, limit));
}

/** The runs a write moved from the queue to a slot: out of the queue, and not because they ended or went. */
export function promotedRuns(before: Lists | undefined, after: Lists | undefined, left: readonly string[]): string[] {
  const still = new Set(after?.queue ?? []);
  return (before?.queue ?? []).filter((r) => !still.has(r) && !left.includes(r));
}
