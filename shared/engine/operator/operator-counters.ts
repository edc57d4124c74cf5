// The CascadeAutoOperator's counters (active, succeeded, failed, result):
// exactly-once by key (shared/core/counters.ts), written with optimistic
// concurrency from the copy this process last wrote.
import { UNMARKED_MAX, type CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { leftToHolder, type LeftToHolder } from '../../core/counter-holder.ts';
import { applyCounter, counterKey, mayHaveDropped, stillUncounted, type CounterChange } from '../../core/counters.ts';
import { limitOf, promotedRuns } from '../../core/concurrency-limit.ts';
import { apiErrorKind } from '../../kube/errors.ts';
import { isLater } from '../../kube/resource-version.ts';
import { conflictPause } from '../run/conflict-pause.ts';
import type { Counter, EngineDeps } from '../deps.ts';
import { counterBatcher, perScenario } from './counter-batcher.ts';
import { NO_HOLDER, type CounterHolder } from './counter-holder.ts';

/** The CascadeAutoOperator is one object every run start and end writes: under a burst, many writers race for it. */
const COUNT_ATTEMPTS = 40;

/**
 * The CascadeAutoOperator as this process last wrote it: the next write starts
 * from it instead of reading it again, and reads only when the write is
 * refused (someone else changed it: 409; or it is gone: 404).
 */
export interface OperatorCache {
  op?: CascadeAutoOperator | undefined;
  /** Marks (`marked` changes) that wait for the next write instead of making one: a pin left longer only costs room. */
  marks?: CounterChange[];
  /** The process each write names as the counters' writer (`status.writer`); none, a write leaves the name as it was. */
  writer?: (() => string | undefined) | undefined;
  /** Told each copy known to be recent: one this process wrote, as returned, or one read after a write was refused. */
  recent?: ((op: CascadeAutoOperator) => void) | undefined;
}

/**
 * The changes minus those already counted whose keys were dropped. Each such
 * change's run is read now, after `op` was current: a dropped key's run shows
 * its mark (core/counters.ts stillUncounted; docs/architecture.md).
 */
async function uncounted(
  deps: Pick<EngineDeps, 'store'>,
  op: CascadeAutoOperator,
  changes: readonly CounterChange[],
): Promise<CounterChange[]> {
  if (!mayHaveDropped(op.status)) return [...changes];
  const keys = new Set(op.status?.countedRuns ?? []);
  const kept = await Promise.all(
    changes.map(async (c) => {
      if (c.kind === 'gone' || c.kind === 'marked' || keys.has(counterKey(c))) return true;
      return stillUncounted(c, await deps.store.getRun(c.run));
    }),
  );
  return changes.filter((_, i) => kept[i]);
}

/** A write from the cached copy was refused because the copy is stale: read it and try again at once. */
function staleCache(cached: CascadeAutoOperator | undefined, error: unknown): boolean {
  const kind = apiErrorKind(error);
  return cached !== undefined && (kind === 'conflict' || kind === 'not-found');
}

/**
 * The runs a write moved from the queue to a slot are woken (hooks.promoted):
 * they wait for no one else. A run that ended or went in the same write left
 * the queue for another reason; a start or a mark leaves nothing.
 */
function tellPromoted(
  deps: Pick<EngineDeps, 'hooks'>,
  write: { before: CascadeAutoOperator; after: CascadeAutoOperator },
  changes: CounterChange[],
): void {
  const left = changes.filter((c) => c.kind !== 'started' && c.kind !== 'marked').map((c) => c.run);
  const promoted = promotedRuns(write.before.status, write.after.status, left);
  if (promoted.length > 0) deps.hooks.promoted(write.after.metadata.name, promoted);
}

/** The operator's status with `changes` applied, under the limit it holds; the same object when none changed it. */
function nextStatus(op: CascadeAutoOperator, changes: readonly CounterChange[]): CascadeAutoOperator['status'] {
  const limit = limitOf(op.spec.maxConcurrentRuns);
  return changes.reduce((status, change) => applyCounter(status, change, limit) ?? status, op.status);
}

/** One write of `changes`, and of the marks waiting, from `op`: the operator as written, or `op` when nothing changed. */
async function writeFrom(
  deps: Pick<EngineDeps, 'store' | 'hooks'>,
  op: CascadeAutoOperator,
  changes: readonly CounterChange[],
  cache: OperatorCache,
): Promise<CascadeAutoOperator> {
  const marks = [...(cache.marks ?? [])];
  const next = nextStatus(op, [...marks, ...(await uncounted(deps, op, changes))]);
  if (next === op.status) return op;
  const writer = cache.writer?.();
  const written = await deps.store.writeOperatorStatus(op, writer ? { ...next, writer } : next!);
  cache.op = written;
  cache.recent?.(written);
  cache.marks = cache.marks?.filter((m) => !marks.includes(m));
  tellPromoted(deps, { before: op, after: written }, [...changes]);
  return written;
}

/**
 * Applies counter changes to the scenario's CascadeAutoOperator, if it exists,
 * in one write. Returns the operator the changes are in (as written, or as read
 * when they were in already), or undefined when there is no operator to count on.
 * The write carries the resourceVersion of the operator it was computed from,
 * spec (maxConcurrentRuns) and status alike: admission is decided on the API server.
 */
export async function writeCounters(
  deps: Pick<EngineDeps, 'store' | 'config' | 'hooks'>,
  changes: CounterChange[],
  cache: OperatorCache = {},
  scenario = deps.config.scenarioName,
): Promise<CascadeAutoOperator | undefined> {
  let refused = false;
  for (let attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
    const cached = cache.op;
    cache.op = undefined;
    const op = cached ?? (await deps.store.getOperator(scenario));
    if (!op) return undefined;
    // A copy read after a refusal shows a write made since this process's copy: its writer is alive.
    if (refused && !cached) cache.recent?.(op);
    try {
      return await writeFrom(deps, op, changes, cache);
    } catch (error) {
      refused = true;
      if (staleCache(cached, error)) continue;
      if (apiErrorKind(error) !== 'conflict') throw error;
      deps.hooks.conflict();
      await conflictPause(attempt);
    }
  }
  throw new Error(`CascadeAutoOperator ${scenario}: still conflicting after ${COUNT_ATTEMPTS} attempts`);
}

/**
 * A copy of the operator read just now, by a run request's finalizer check,
 * offered to the cache. The next write starts from it when the process holds
 * no copy: at its first count, or after a refused write. So the operator is
 * not read again. A copy someone changed since costs a refused write and a
 * read, as a stale cache does.
 */
export function offerOperator(cache: OperatorCache, seen: CascadeAutoOperator | undefined): void {
  if (seen !== undefined && cache.op === undefined) cache.op = seen;
}

/**
 * A copy of the operator from the process's watch of operators, offered to the
 * cache. It replaces the cached copy when it is later: another replica wrote
 * since this one did, and the next write starts from that copy instead of
 * being refused with a 409. A deleted operator's copy is dropped.
 */
export function offerWatched(
  cache: OperatorCache,
  change: 'ADDED' | 'MODIFIED' | 'DELETED',
  op: CascadeAutoOperator,
): void {
  const held = cache.op;
  if (change === 'DELETED') {
    if (held?.metadata.uid === op.metadata.uid) cache.op = undefined;
    return;
  }
  if (!held || isLater(op.metadata.resourceVersion, held.metadata.resourceVersion)) cache.op = op;
}

/** One counter change on `scenario`'s operator, through the process's counter. `seen` is the operator as the caller has just read it, if it has (offerOperator). */
export function count(
  deps: Pick<EngineDeps, 'config' | 'counter'>,
  change: CounterChange,
  scenario = deps.config.scenarioName,
  seen?: CascadeAutoOperator,
): Promise<CascadeAutoOperator | undefined> {
  return deps.counter(change, scenario, seen);
}

/** Each change in a write of its own, with `deps`' hooks: the janitor's counter. Resolves as writeCounters does. */
export function directCounter(deps: Pick<EngineDeps, 'store' | 'config' | 'hooks'>): Counter {
  return (change, scenario, seen) => {
    const cache: OperatorCache = {};
    offerOperator(cache, seen);
    return writeCounters(deps, [change], cache, scenario);
  };
}

/**
 * Marks waiting past this many make a write of their own: every counted change
 * is pinned until its mark, and the CRD holds at most UNMARKED_MAX pins.
 */
export const MARKS_WAITING_MAX = UNMARKED_MAX / 4;

/** The cached copy of each scenario's operator, by scenario: one per process, fed by its writes and its watch. */
export type OperatorCaches = Map<string, OperatorCache>;

/** The cache of `scenario`'s operator in `caches`, made on first use. */
export function cacheOf(caches: OperatorCaches, scenario: string): OperatorCache {
  let cache = caches.get(scenario);
  if (!cache) caches.set(scenario, (cache = {}));
  return cache;
}

/** A scenario's counter in this process: its cached operator copy and its group commit. */
interface ScenarioCounter {
  scenario: string;
  cache: OperatorCache;
  write: (change: CounterChange) => Promise<CascadeAutoOperator | undefined>;
  hooks: Pick<EngineDeps['hooks'], 'countLeft'>;
}

/**
 * A change left to the process that holds the counters (core/counter-holder.ts):
 * the operator once a copy shows it counted. A mark is the holder's to read off
 * the run. Past the wait the change is written here.
 */
function leftWith(
  holder: CounterHolder,
  to: ScenarioCounter,
  change: LeftToHolder,
): Promise<CascadeAutoOperator | undefined> {
  if (change.kind === 'marked') return Promise.resolve(undefined);
  const key = counterKey(change);
  const held = to.cache.op;
  if (held?.status?.countedRuns?.includes(key)) {
    to.hooks.countLeft('counted');
    return Promise.resolve(held);
  }
  return holder.counted(to.scenario, key).then((op) => {
    to.hooks.countLeft(op ? 'counted' : 'written');
    return op ?? to.write(change);
  });
}

/**
 * One group commit per scenario, each with its cached copy of the operator
 * (counter-batcher.ts): the function's counter. `caches` is shared with the
 * process's watch of operators, which keeps the copies fresh. Each write names
 * this process as the writer; a start, an end or a mark is left to another
 * process while it holds the counters.
 */
export function batchedCounter(
  deps: Pick<EngineDeps, 'store' | 'config' | 'hooks'>,
  caches: OperatorCaches = new Map(),
  holder: CounterHolder = NO_HOLDER,
): Counter {
  return perScenario((scenario) => {
    const operator = cacheOf(caches, scenario);
    Object.assign(operator, { writer: () => holder.name(scenario), recent: holder.recent });
    const write = counterBatcher((changes) => writeCounters(deps, changes, operator, scenario));
    const counter: ScenarioCounter = { scenario, cache: operator, write, hooks: deps.hooks };
    return (change: CounterChange, seen?: CascadeAutoOperator) => {
      offerOperator(operator, seen);
      if (leftToHolder(change) && holder.holder(scenario) === 'other') return leftWith(holder, counter, change);
      // A mark rides on the next write rather than making one of its own, unless too many wait.
      if (change.kind !== 'marked') return write(change);
      const marks = (operator.marks ??= []);
      marks.push(change);
      return marks.length >= MARKS_WAITING_MAX ? write(change) : Promise.resolve(undefined);
    };
  });
}
