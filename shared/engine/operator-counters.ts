// The CascadeAutoOperator's counters (active, succeeded, failed, result):
// exactly-once by key (shared/core/counters.ts), written with optimistic
// concurrency from the copy this process last wrote.
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import { applyCounter, type CounterChange } from '../core/counters.ts';
import { apiErrorKind } from '../kube/errors.ts';
import { conflictPause } from './conflict-pause.ts';
import type { EngineDeps } from './deps.ts';

/** The CascadeAutoOperator is one object every run start and end writes: under a burst, many writers race for it. */
const COUNT_ATTEMPTS = 40;

/**
 * The CascadeAutoOperator as this process last wrote it: the next write starts
 * from it instead of reading it again, and reads only when the write is
 * refused (someone else changed it: 409; or it is gone: 404).
 */
export interface OperatorCache {
  op?: CascadeAutoOperator | undefined;
}

/** A write from the cached copy was refused because the copy is stale: read it and try again at once. */
function staleCache(cached: CascadeAutoOperator | undefined, error: unknown): boolean {
  const kind = apiErrorKind(error);
  return cached !== undefined && (kind === 'conflict' || kind === 'not-found');
}

/**
 * Applies counter changes to the scenario's CascadeAutoOperator, if it exists,
 * in one write. Returns the operator the changes are in (as written, or as read
 * when they were in already), or undefined when there is no operator to count on.
 */
export async function writeCounters(
  deps: Pick<EngineDeps, 'store' | 'config' | 'hooks'>, changes: CounterChange[], cache: OperatorCache = {},
): Promise<CascadeAutoOperator | undefined> {
  for (let attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
    const cached = cache.op;
    cache.op = undefined;
    const op = cached ?? await deps.store.getOperator(deps.config.scenarioName);
    if (!op) return undefined;
    const next = changes.reduce((status, change) => applyCounter(status, change) ?? status, op.status);
    if (next === op.status) return op;
    try {
      cache.op = await deps.store.writeOperatorStatus(op, next!);
      return cache.op;
    } catch (error) {
      if (staleCache(cached, error)) continue;
      if (apiErrorKind(error) !== 'conflict') throw error;
      deps.hooks?.conflict?.();
      await conflictPause(attempt);
    }
  }
  throw new Error(`CascadeAutoOperator ${deps.config.scenarioName}: still conflicting after ${COUNT_ATTEMPTS} attempts`);
}

/** One counter change: through the process's group commit when it has one. Resolves as writeCounters does. */
export function count(deps: EngineDeps, change: CounterChange): Promise<CascadeAutoOperator | undefined> {
  return deps.counter ? deps.counter(change) : writeCounters(deps, [change]);
}
