// The end of a run, done once however often it is asked: the
// CascadeAutoOperator's counters (exactly-once by key), the run-end CloudEvent
// to K_SINK (at least once, with a stable id for consumers to dedupe), then
// `status.notified` so that it is not asked again.
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { applyCounter, type CounterChange } from '../core/counters.ts';
import { apiErrorKind } from '../kube/errors.ts';
import type { EngineDeps, RunEndEvent } from './deps.ts';

const MAX_ATTEMPTS = 10;
/** The CascadeAutoOperator is one object every run start and end writes: under a burst, many writers race for it. */
const COUNT_ATTEMPTS = 40;

/** Full-jitter backoff between optimistic-concurrency retries, so that racing writers spread out. */
export function conflictPause(attempt: number): Promise<void> {
  const ceiling = Math.min(500, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

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

/** Applies counter changes to the scenario's CascadeAutoOperator, if it exists, in one write. */
export async function writeCounters(deps: Pick<EngineDeps, 'store' | 'config' | 'hooks'>, changes: CounterChange[], cache: OperatorCache = {}): Promise<void> {
  for (let attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
    const cached = cache.op;
    cache.op = undefined;
    const op = cached ?? await deps.store.getOperator(deps.config.scenarioName);
    if (!op) return;
    const next = changes.reduce((status, change) => applyCounter(status, change) ?? status, op.status);
    if (next === op.status) return;
    try {
      cache.op = await deps.store.writeOperatorStatus(op, next!);
      return;
    } catch (error) {
      if (staleCache(cached, error)) continue;
      if (apiErrorKind(error) !== 'conflict') throw error;
      deps.hooks?.conflict?.();
      await conflictPause(attempt);
    }
  }
  throw new Error(`CascadeAutoOperator ${deps.config.scenarioName}: still conflicting after ${COUNT_ATTEMPTS} attempts`);
}

/** One counter change: through the process's group commit when it has one. */
export function count(deps: EngineDeps, change: CounterChange): Promise<void> {
  return deps.counter ? deps.counter(change) : writeCounters(deps, [change]);
}

export function runEndEvent(deps: EngineDeps, run: CascadeRun, phase: 'Succeeded' | 'Failed'): RunEndEvent {
  const s = run.status ?? {};
  return {
    id: `${run.metadata.uid ?? run.metadata.name}-${phase.toLowerCase()}`,
    type: phase === 'Succeeded' ? 'net.cascade.run.succeeded.v1' : 'net.cascade.run.failed.v1',
    source: `/cascade/${deps.config.namespace}/${deps.config.scenarioName}`,
    subject: run.metadata.name,
    data: {
      runname: run.metadata.name, iuid: run.spec.pid, oname: run.spec.ob, sname: run.spec.src,
      phase, info: s.info, result: s.result ?? [],
      reason: s.conditions?.find((c) => c.type === 'Succeeded')?.reason,
      startTime: s.startTime, completionTime: s.completionTime,
      modules: (s.modules ?? []).map((m) => ({ name: m.name, phase: m.phase, result: m.result, startTime: m.startTime, completionTime: m.completionTime })),
    },
  };
}

async function markNotified(deps: EngineDeps, run: CascadeRun): Promise<CascadeRun> {
  let current: CascadeRun | undefined = run;
  for (let attempt = 1; current && attempt <= MAX_ATTEMPTS; attempt++) {
    if (current.status?.notified) return current;
    try {
      return await deps.store.writeRunStatus(current, { ...current.status, notified: true });
    } catch (error) {
      if (apiErrorKind(error) !== 'conflict') throw error;
      await conflictPause(attempt);
      current = await deps.store.getRun(run.metadata.name);
    }
  }
  return current ?? run;
}

export async function finishRun(deps: EngineDeps, run: CascadeRun, phase: 'Succeeded' | 'Failed'): Promise<CascadeRun> {
  await count(deps, { kind: 'ended', run: run.metadata.name, phase });
  await deps.notify(runEndEvent(deps, run, phase));
  return markNotified(deps, run);
}
