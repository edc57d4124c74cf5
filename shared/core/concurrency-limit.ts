// The concurrency limit of a scenario (`spec.maxConcurrentRuns`) as a holder
// list and a FIFO queue in its CascadeAutoOperator's status. Each change is
// written with the operator's resourceVersion, so admission is a
// compare-and-swap on the API server, never a count in memory: two replicas,
// a redelivery or a crash between two writes cannot admit one run too many.
// Every change is idempotent by the lists themselves. Pure.
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';

/** Where a run stands: holds a slot, waits in the queue, or neither yet (or no longer). */
export type Admission = 'admitted' | 'queued' | 'unknown';

/**
 * A run's change as the limit sees it: it starts, an attempt of it ends, it is
 * gone, or it is resumed. `attempt`: the run's resumes when that attempt
 * began, 0 for its start.
 */
export interface SlotChange {
  kind: 'started' | 'ended' | 'gone' | 'resumed';
  run: string;
  attempt?: number | undefined;
}

/**
 * The entry of a run's attempt in the holder list: its name for its start,
 * `<name>/r<N>` for its N-th resume ("/" is in no object name). An end
 * releases its own attempt's entry only, so an end written late cannot take
 * the slot of the resume that followed it.
 */
export function slotOf(run: string, attempt = 0): string {
  return attempt > 0 ? `${run}/r${attempt}` : run;
}

/** The run and attempt of a holder list's entry. */
export function attemptOf(entry: string): { run: string; attempt: number } {
  const m = /^(.*)\/r(\d+)$/.exec(entry);
  return m ? { run: m[1]!, attempt: Number(m[2]) } : { run: entry, attempt: 0 };
}

type Lists = Pick<CascadeAutoOperatorStatus, 'holders' | 'queue'>;

/** Unset, or not a positive integer: no limit. */
export function limitOf(maxConcurrentRuns: number | undefined): number {
  return maxConcurrentRuns !== undefined && Number.isInteger(maxConcurrentRuns) && maxConcurrentRuns > 0
    ? maxConcurrentRuns
    : Infinity;
}

export function admissionOf(status: CascadeAutoOperatorStatus | undefined, run: string): Admission {
  if (status?.holders?.includes(run)) return 'admitted';
  if (status?.queue?.includes(run)) return 'queued';
  return 'unknown';
}

/** Oldest first: queued runs take free slots (all of them when there is no limit). */
function promote<S extends Lists>(s: S, limit: number): S {
  const queue = s.queue ?? [];
  if (queue.length === 0) return s;
  const holders = s.holders ?? [];
  const room = Math.max(0, limit - holders.length);
  const moved = queue.slice(0, room);
  if (moved.length === 0) return s;
  const next = { ...s, queue: queue.slice(moved.length) };
  return limit === Infinity ? next : { ...next, holders: [...holders, ...moved] };
}

/**
 * A run's start: it takes a slot when one is free and no run waits before it,
 * else joins the end of the queue. Without a limit and no queue, nothing to keep.
 */
export function admit<S extends Lists>(s: S, run: string, limit: number): S {
  const holders = s.holders ?? [];
  const queue = s.queue ?? [];
  if (holders.includes(run) || queue.includes(run)) return s;
  if (limit === Infinity && queue.length === 0) return s;
  if (queue.length === 0 && holders.length < limit) return { ...s, holders: [...holders, run] };
  return promote({ ...s, queue: [...queue, run] }, limit);
}

/** A run leaves its slot or its place in the queue (it ended, or is gone); the oldest queued runs take the free slots. */
export function release<S extends Lists>(s: S, run: string, limit: number): S {
  let next = s;
  if (s.queue?.includes(run)) next = { ...s, queue: s.queue.filter((r) => r !== run) };
  else if (s.holders?.includes(run)) next = { ...s, holders: s.holders.filter((r) => r !== run) };
  return promote(next, limit);
}

/** A run gone leaves every entry it has. */
function gone<S extends Lists>(s: S, run: string, limit: number): S {
  const keep = (e: string) => attemptOf(e).run !== run;
  const holders = s.holders ?? [];
  const queue = s.queue ?? [];
  if (holders.every(keep) && queue.every(keep)) return s;
  return promote({ ...s, holders: holders.filter(keep), queue: queue.filter(keep) }, limit);
}

/** A resumed run holds a slot at once, even over the limit: a resume is not queued. */
function resumed<S extends Lists>(s: S, entry: string, limit: number): S {
  const holders = s.holders ?? [];
  if (limit === Infinity || holders.includes(entry)) return s;
  return { ...s, holders: [...holders, entry] };
}

/** The status after `change` under `limit`: the same object when nothing changes. */
export function applySlot<S extends Lists>(s: S, change: SlotChange, limit: number): S {
  if (change.kind === 'started') return admit(s, change.run, limit);
  if (change.kind === 'gone') return gone(s, change.run, limit);
  const entry = slotOf(change.run, change.attempt);
  if (change.kind === 'resumed') return resumed(s, entry, limit);
  return release(s, entry, limit);
}

/** The runs a write moved from the queue to a slot: out of the queue, and not because they ended or went. */
export function promotedRuns(before: Lists | undefined, after: Lists | undefined, left: readonly string[]): string[] {
  const still = new Set(after?.queue ?? []);
  return (before?.queue ?? []).filter((r) => !still.has(r) && !left.includes(r));
}
