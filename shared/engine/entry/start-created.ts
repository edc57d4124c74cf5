// A run request is answered once its CascadeRun exists; the start follows.
// The start is the run's start written on its operator, then the first decision
// (its first Job, or its place in the queue), in the process that answered.
// Should that process die after its reply, the run's own add event starts it
// in another process; the janitor starts what both missed (admission.ts).
// Written first, then moved: a run with a phase has had its start written.
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { EngineDeps } from '../deps.ts';
import { admitRun, awaitsAdmission } from '../operator/admission.ts';
import { scenarioOf } from '../run/finish-run.ts';
import { isDeleting } from '../operator/operator-finalizer.ts';
import { accepted, type Outcome } from './outcome.ts';
import { reconcileRun } from '../run/reconcile.ts';

/** Runs `start` after the reply, in `deps.background`; a failure is logged and left to the add event and the janitor. */
export function startAfterReply(
  deps: EngineDeps & { background: NonNullable<EngineDeps['background']> },
  name: string,
  start: () => Promise<void>,
): void {
  deps.background(
    deps.starts
      .track(name, start())
      .catch((error: unknown) =>
        deps.log.warn({ err: error, run: name }, 'run created but not started: its add event or the janitor starts it'),
      ),
  );
}

/** True once this process's own start of the run has succeeded; false when there is none, or it failed. */
async function startedHere(deps: EngineDeps, name: string): Promise<boolean> {
  const here = deps.starts.inFlight(name);
  if (!here) return deps.starts.finished(name);
  return here.then(
    () => true,
    () => false,
  );
}

/** The run's phase once it is started, read from this process's copy when it has one: undefined while not started. */
function startedPhase(run: CascadeRun | undefined): string | undefined {
  if (!run) return 'gone';
  if (isDeleting(run)) return 'deleting';
  return awaitsAdmission(run) && run.status?.phase !== 'Queued' ? undefined : run.status?.phase;
}

/**
 * A start that may have died between its status write and its Job's create:
 * the run is running and its current step has no Job recorded yet. Only a
 * look with the run's Jobs listed tells whether that Job exists.
 */
export function jobMaybeMissing(run: CascadeRun | undefined): boolean {
  const status = run?.status;
  if (status?.phase !== 'Running' || status.currentStep === undefined) return false;
  const step = status.modules?.find((m) => m.step === status.currentStep);
  return step?.phase === 'Running' && step.jobUid === undefined && step.retryAt === undefined;
}

/**
 * Started, but its first Job may be missing: moved once with its Jobs listed,
 * which creates that Job when it is not there (reconcile.ts).
 */
async function repairStart(deps: EngineDeps, name: string, phase: string): Promise<Outcome> {
  const result = await reconcileRun(deps, name, { kind: 'Observe' });
  const now = result.kind === 'done' ? result.run.status?.phase : phase;
  return accepted({ run: name, verdict: 'started', phase: now });
}

/**
 * A CascadeRun with no phase was added or changed: start it unless it is
 * started already. One this process started, or is starting, costs no API
 * call; nor does one it wrote last. Any other is read once and, still not
 * started, written and moved as the janitor would. One started whose current Job is not
 * recorded yet is moved with its Jobs listed: its starter may have died
 * before it made that Job.
 */
export async function startCreatedRun(deps: EngineDeps, name: string): Promise<Outcome> {
  if (await startedHere(deps, name)) return accepted({ run: name, verdict: 'started by this process' });
  const copy = deps.runs.get(name);
  const cached = copy?.status?.phase;
  if (cached)
    return jobMaybeMissing(copy)
      ? repairStart(deps, name, cached)
      : accepted({ run: name, verdict: 'started', phase: cached });
  const run = await deps.store.getRun(name);
  const phase = startedPhase(run);
  if (phase !== undefined && jobMaybeMissing(run)) return repairStart(deps, name, phase);
  if (phase !== undefined || !run) return accepted({ run: name, verdict: 'started', phase });
  const admission = await admitRun(deps, name, scenarioOf(deps, run));
  const result = await reconcileRun(deps, name, { kind: 'Observe' }, { known: run, admission });
  const now = result.kind === 'done' ? result.run.status?.phase : undefined;
  deps.log.info({ run: name, phase: now }, 'run started from its add event: the process that created it did not');
  return accepted({ run: name, verdict: 'started', phase: now });
}
