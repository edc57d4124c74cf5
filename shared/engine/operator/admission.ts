// Runs under their scenario's concurrency limit, spec.maxConcurrentRuns,
// acting on what core/concurrency-limit.ts decides. A run's start is written
// on its scenario's CascadeAutoOperator, which admits it or queues it in a
// resourceVersion-guarded write. A run's end is written there too, and hands
// its slot to the oldest queued run, which is woken at once. The janitor takes
// up what a crash or a lost wake-up leaves behind, from the operator's status,
// the only truth. That is a run created but on no list, a run admitted but
// still Queued, or the slot of a run deleted in flight or ended.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun, type RunPhase } from '../../api/cascade-run.ts';
import { admissionOf, attemptOf, type SlotChange } from '../../core/concurrency-limit.ts';
import type { DecideInput } from '../../core/types.ts';
import type { EngineDeps } from '../deps.ts';
import { scenarioOf } from '../run/finish-run.ts';
import { isDeleting } from './operator-finalizer.ts';
import { directSlots, slotChange } from './admission-writes.ts';
import { reconcileRun } from '../run/reconcile.ts';

export type Admitted = DecideInput['admission'];

/** What the operator the start was written on says of the run: undefined without an operator (no limit). */
export function admissionAfterStart(op: CascadeAutoOperator | undefined, run: string): Admitted {
  if (!op) return undefined;
  // On no list: no limit, or released already (a start written after its own end).
  return admissionOf(op.status, run) === 'queued' ? 'queued' : 'admitted';
}

/** Writes run `name`'s start on `scenario`'s operator (admitted or queued there, once) and says which. */
export async function admitRun(deps: EngineDeps, name: string, scenario: string): Promise<Admitted> {
  return admissionAfterStart(await slotChange(deps, { kind: 'started', run: name }, scenario), name);
}

/** A run not started yet: no phase, or Queued. Only these need the operator's word. */
export function awaitsAdmission(run: CascadeRun): boolean {
  const phase = run.status?.phase;
  return phase === undefined || phase === 'Queued';
}

/** Starts runs a slot write moved from the queue to a slot; one that fails is left to the janitor. */
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

/** The operators one sweep or sync pass read, by scenario (keyed by its deps): read once, since a run's admission only ever moves forward. */
const sweepReads = new WeakMap<EngineDeps, Map<string, Promise<CascadeAutoOperator | undefined>>>();

function readOnce(deps: EngineDeps, scenario: string): Promise<CascadeAutoOperator | undefined> {
  let reads = sweepReads.get(deps);
  if (!reads) sweepReads.set(deps, (reads = new Map()));
  let read = reads.get(scenario);
  if (!read) reads.set(scenario, (read = deps.store.getOperator(scenario)));
  return read;
}

/**
 * The word on a run not started yet, for a look at a listed run: the janitor's
 * sweep, the function's first sync. It comes from its operator's status. The
 * start is written first when the run is on no list: the process that created
 * it died before. A stale read is safe: a run the read shows admitted stays
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

/** What of a run tells whether an attempt of it is over. */
export interface RunAttempts {
  deleting: boolean;
  resumes: number;
  phase: RunPhase | undefined;
}

export function attemptsOf(run: CascadeRun): RunAttempts {
  return { deleting: isDeleting(run), resumes: run.status?.resumes ?? 0, phase: run.status?.phase };
}

/** The attempt of a run is over: it ended, or the run is gone. Both stay so. */
export function attemptOver(run: RunAttempts | undefined, attempt: number): boolean {
  if (!run || run.deleting) return true;
  return run.resumes > attempt || (run.resumes === attempt && isTerminalPhase(run.phase));
}

/**
 * The slot changes that free what runs gone or ended still hold. An entry is
 * released only when a read of its run shows that attempt over, which stays
 * so: a late start, or an end whose write was lost, leaves no slot taken.
 * `listed`: the runs of the sweep's listing, which picks the runs to read.
 */
async function overEntries(
  deps: EngineDeps,
  op: CascadeAutoOperator,
  listed: ReadonlyMap<string, RunAttempts>,
): Promise<SlotChange[]> {
  const entries = [...(op.status?.holders ?? []), ...(op.status?.queue ?? [])].map(attemptOf);
  const suspects = entries.filter((e) => attemptOver(listed.get(e.run), e.attempt));
  const found = await Promise.all(
    suspects.map(async (e): Promise<SlotChange | undefined> => {
      const read = await deps.store.getRun(e.run);
      const run = read && attemptsOf(read);
      if (!attemptOver(run, e.attempt)) return undefined;
      return run && !run.deleting ? { kind: 'ended', run: e.run, attempt: e.attempt } : { kind: 'gone', run: e.run };
    }),
  );
  return found.filter((c): c is SlotChange => c !== undefined);
}

/** Frees the slots (and queue places) of runs deleted in flight or ended, in every scenario the sweep saw; the oldest queued runs take them. */
export async function releaseOver(
  deps: EngineDeps,
  listed: ReadonlyMap<string, RunAttempts>,
  scenarios: ReadonlySet<string>,
): Promise<number> {
  let released = 0;
  for (const scenario of scenarios) {
    const op = await readOnce(deps, scenario);
    if (!op) continue;
    const over = await overEntries(deps, op, listed);
    for (const change of over) await slotChange(deps, change, scenario);
    if (over.length > 0)
      deps.log.info({ scenario, runs: over.map((c) => c.run) }, 'slots of runs gone or ended released');
    released += over.length;
  }
  return released;
}

/** The sweep's deps: each slot change written at once, its wake-ups collected, and the promise that they are all done. The janitor answers no one, so it waits. */
export function sweepWakes(deps: EngineDeps): { deps: EngineDeps; settle: () => Promise<void> } {
  const pending: Promise<void>[] = [];
  const at: EngineDeps = { ...deps };
  at.hooks = { ...deps.hooks, promoted: (scenario, runs) => void pending.push(wakePromoted(at, scenario, runs)) };
  at.slots = directSlots(at);
  return {
    deps: at,
    settle: async () => {
      while (pending.length > 0) await Promise.all(pending.splice(0));
    },
  };
}
