// Runs under their scenario's concurrency limit, spec.maxConcurrentRuns,
// acting on what core/concurrency-limit.ts decides. A run's start is counted
// on its scenario's CascadeAutoOperator, which admits it or queues it in the
// same resourceVersion-guarded write. A run's end is counted there too, and
// hands its slot to the oldest queued run, which is woken at once. The janitor
// takes up what a crash or a lost wake-up leaves behind, from the operator's
// status, the only truth: a run created but not counted, a run admitted but
// still Queued, the slot of a run deleted in flight.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { admissionOf } from '../../core/concurrency-limit.ts';
import type { DecideInput } from '../../core/types.ts';
import type { EngineDeps } from '../deps.ts';
import { scenarioOf } from '../run/finish-run.ts';
import { count, directCounter } from './operator-counters.ts';
import { reconcileRun } from '../run/reconcile.ts';

export type Admitted = DecideInput['admission'];

/** What the operator the start was counted on says of the run: undefined without an operator (no limit). */
export function admissionAfterCount(op: CascadeAutoOperator | undefined, run: string): Admitted {
  if (!op) return undefined;
  // Counted, yet on no list: counted after its own end, or promoted without a limit.
  return admissionOf(op.status, run) === 'queued' ? 'queued' : 'admitted';
}

/** Counts run `name`'s start on `scenario`'s operator (admitted or queued there, once) and says which. */
export async function admitRun(deps: EngineDeps, name: string, scenario: string): Promise<Admitted> {
  return admissionAfterCount(await count(deps, { kind: 'started', run: name }, scenario), name);
}

/** A run not started yet: no phase, or Queued. Only these need the operator's word. */
export function awaitsAdmission(run: CascadeRun): boolean {
  const phase = run.status?.phase;
  return phase === undefined || phase === 'Queued';
}

/** Starts runs a counter write moved from the queue to a slot; one that fails is left to the janitor. */
export async function wakePromoted(deps: EngineDeps, scenario: string, runs: readonly string[]): Promise<void> {
  await Promise.all(
    runs.map(async (name) => {
      try {
        await reconcileRun(deps, name, { kind: 'Observe' }, { admission: 'admitted' });
        deps.log.info({ run: name, scenario }, 'run admitted from the queue: a slot is free');
      } catch (error) {
        deps.log.warn(
          { err: error, run: name, scenario },
          'queued run admitted but not started: the janitor will start it',
        );
      }
    }),
  );
}

/** The operators one sweep read, by scenario (keyed by the sweep's deps): read once, since a run's admission only ever moves forward. */
const sweepReads = new WeakMap<EngineDeps, Map<string, Promise<CascadeAutoOperator | undefined>>>();

function readOnce(deps: EngineDeps, scenario: string): Promise<CascadeAutoOperator | undefined> {
  let reads = sweepReads.get(deps);
  if (!reads) sweepReads.set(deps, (reads = new Map()));
  let read = reads.get(scenario);
  if (!read) reads.set(scenario, (read = deps.store.getOperator(scenario)));
  return read;
}

/**
 * The janitor's view of a run not started yet: from its operator's status,
 * counting the start first when it never was (the process that created the
 * run died before). A stale read is safe: a run the read shows admitted stays
 * so until it ends; one it shows queued waits one more sweep or its wake-up.
 */
export async function admissionInSweep(deps: EngineDeps, run: CascadeRun): Promise<Admitted> {
  if (!awaitsAdmission(run)) return undefined;
  const scenario = scenarioOf(deps, run);
  const op = await readOnce(deps, scenario);
  if (!op) return 'admitted'; // no operator, no limit
  const name = run.metadata.name;
  const now = admissionOf(op.status, name);
  return now === 'unknown' ? admitRun(deps, name, scenario) : now;
}

/** Runs a holder list or a queue names that are gone (deleted before their end was counted). */
async function goneRuns(deps: EngineDeps, op: CascadeAutoOperator, listed: ReadonlySet<string>): Promise<string[]> {
  const named = [...(op.status?.holders ?? []), ...(op.status?.queue ?? [])].filter((r) => !listed.has(r));
  // Listed earlier, a run may have been created since: only a run the API server says is gone is released.
  const found = await Promise.all(named.map(async (r) => ((await deps.store.getRun(r)) ? undefined : r)));
  return found.filter((r): r is string => r !== undefined);
}

/** Frees the slots (and queue places) of runs deleted in flight, in every scenario the sweep saw; the oldest queued runs take them. */
export async function releaseGone(
  deps: EngineDeps,
  listed: ReadonlySet<string>,
  scenarios: ReadonlySet<string>,
): Promise<number> {
  let released = 0;
  for (const scenario of scenarios) {
    const op = await readOnce(deps, scenario);
    if (!op) continue;
    const gone = await goneRuns(deps, op, listed);
    for (const run of gone) await count(deps, { kind: 'gone', run }, scenario);
    if (gone.length > 0) deps.log.info({ scenario, runs: gone }, 'slots of runs deleted in flight released');
    released += gone.length;
  }
  return released;
}

/** The sweep's deps: each counter change written at once, its wake-ups collected, and the promise that they are all done. The janitor answers no one, so it waits. */
export function sweepWakes(deps: EngineDeps): { deps: EngineDeps; settle: () => Promise<void> } {
  const pending: Promise<void>[] = [];
  const at: EngineDeps = { ...deps };
  at.hooks = { ...deps.hooks, promoted: (scenario, runs) => void pending.push(wakePromoted(at, scenario, runs)) };
  at.counter = directCounter(at);
  return {
    deps: at,
    settle: async () => {
      while (pending.length > 0) await Promise.all(pending.splice(0));
    },
  };
}
