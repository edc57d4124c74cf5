// The concurrency limit's writes on the CascadeAutoOperator (core/
// concurrency-limit.ts): a run's start, end, resume or disappearance, written
// with optimistic concurrency from the copy this process holds. Without a
// limit and no queue they change nothing, and nothing is written.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { applySlot, limitOf, promotedRuns, type SlotChange } from '../../core/concurrency-limit.ts';
import { apiErrorKind } from '../../kube/errors.ts';
import { isLater } from '../../kube/resource-version.ts';
import { conflictPause } from '../run/conflict-pause.ts';
import type { EngineDeps, SlotWriter } from '../deps.ts';
import { slotBatcher, perScenario } from './slot-batcher.ts';

/** The CascadeAutoOperator is one object every run start and end writes under a limit: many writers may race for it. */
const WRITE_ATTEMPTS = 40;

/**
 * The CascadeAutoOperator as this process last wrote or saw it: the next write
 * starts from it instead of reading it again, and reads only when the write is
 * refused (someone else changed it: 409; or it is gone: 404).
 */
export interface OperatorCache {
  op?: CascadeAutoOperator | undefined;
}

/** The cached copy of each scenario's operator, by scenario: one per process, fed by its writes and its watch. */
export type OperatorCaches = Map<string, OperatorCache>;

/** The cache of `scenario`'s operator in `caches`, made on first use. */
export function cacheOf(caches: OperatorCaches, scenario: string): OperatorCache {
  let cache = caches.get(scenario);
  if (!cache) caches.set(scenario, (cache = {}));
  return cache;
}

/** A write from the cached copy was refused because the copy is stale: read it and try again at once. */
function staleCache(cached: CascadeAutoOperator | undefined, error: unknown): boolean {
  const kind = apiErrorKind(error);
  return cached !== undefined && (kind === 'conflict' || kind === 'not-found');
}

/** The runs a write moved from the queue to a slot are woken (hooks.promoted): they wait for no one else. */
function tellPromoted(
  deps: Pick<EngineDeps, 'hooks'>,
  write: { before: CascadeAutoOperator; after: CascadeAutoOperator },
  changes: readonly SlotChange[],
): void {
  const left = changes.filter((c) => c.kind !== 'started').map((c) => c.run);
  const promoted = promotedRuns(write.before.status, write.after.status, left);
  if (promoted.length > 0) deps.hooks.promoted(write.after.metadata.name, promoted);
}

/** One write of `changes` from `op`: the operator as written, or `op` when nothing changed. */
async function writeFrom(
  deps: Pick<EngineDeps, 'store' | 'hooks'>,
  op: CascadeAutoOperator,
  changes: readonly SlotChange[],
  cache: OperatorCache,
): Promise<CascadeAutoOperator> {
  const limit = limitOf(op.spec.maxConcurrentRuns);
  const status = op.status ?? {};
  const next = changes.reduce((s, change) => applySlot(s, change, limit), status);
  if (next === status) return op;
  const written = await deps.store.writeOperatorStatus(op, next);
  cache.op = written;
  tellPromoted(deps, { before: op, after: written }, changes);
  return written;
}

/**
 * Applies slot changes to the scenario's CascadeAutoOperator, if it exists, in
 * one write. Returns the operator the changes are in (as written, or as held
 * when they change nothing), or undefined when there is no operator. The
 * write carries the resourceVersion of the operator it was computed from,
 * spec (maxConcurrentRuns) and status alike: admission is decided on the API server.
 */
export async function writeSlots(
  deps: Pick<EngineDeps, 'store' | 'hooks'>,
  changes: readonly SlotChange[],
  cache: OperatorCache,
  scenario: string,
): Promise<CascadeAutoOperator | undefined> {
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const cached = cache.op;
    const op = cached ?? (await deps.store.getOperator(scenario));
    if (!op) return undefined;
    cache.op ??= op;
    try {
      return await writeFrom(deps, op, changes, cache);
    } catch (error) {
      if (cache.op === op) cache.op = undefined;
      if (staleCache(cached, error)) continue;
      if (apiErrorKind(error) !== 'conflict') throw error;
      deps.hooks.conflict();
      await conflictPause(attempt);
    }
  }
  throw new Error(`CascadeAutoOperator ${scenario}: still conflicting after ${WRITE_ATTEMPTS} attempts`);
}

/** A copy of the operator the caller has just read, offered to the cache when it holds none or an older one. */
export function offerOperator(cache: OperatorCache, seen: CascadeAutoOperator | undefined): void {
  if (seen === undefined) return;
  const held = cache.op;
  if (!held || isLater(seen.metadata.resourceVersion, held.metadata.resourceVersion)) cache.op = seen;
}

/** A copy from the process's watch of operators, offered to the cache. A deleted operator's copy is dropped. */
export function offerWatched(
  cache: OperatorCache,
  change: 'ADDED' | 'MODIFIED' | 'DELETED',
  op: CascadeAutoOperator,
): void {
  if (change !== 'DELETED') return offerOperator(cache, op);
  if (cache.op?.metadata.uid === op.metadata.uid) cache.op = undefined;
}

/** One slot change on `scenario`'s operator, through the process's writer. `seen`: the operator as the caller has just read it. */
export function slotChange(
  deps: Pick<EngineDeps, 'config' | 'slots'>,
  change: SlotChange,
  scenario = deps.config.scenarioName,
  seen?: CascadeAutoOperator,
): Promise<CascadeAutoOperator | undefined> {
  return deps.slots(change, scenario, seen);
}

/** Each change in a write of its own: the janitor's writer. */
export function directSlots(deps: Pick<EngineDeps, 'store' | 'hooks'>): SlotWriter {
  return (change, scenario, seen) => {
    const cache: OperatorCache = {};
    offerOperator(cache, seen);
    return writeSlots(deps, [change], cache, scenario);
  };
}

/** One group commit per scenario, each from the process's cached copy of its operator: the function's writer. */
export function batchedSlots(deps: Pick<EngineDeps, 'store' | 'hooks'>, caches: OperatorCaches): SlotWriter {
  return perScenario((scenario) => {
    const cache = cacheOf(caches, scenario);
    const write = slotBatcher((changes: SlotChange[]) => writeSlots(deps, changes, cache, scenario));
    return (change: SlotChange, seen?: CascadeAutoOperator) => {
      offerOperator(cache, seen);
      return write(change);
    };
  });
}
