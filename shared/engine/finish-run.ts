// The end of a run, done once however often it is asked: the
// CascadeAutoOperator's counters (exactly-once by key), the run-end CloudEvent
// to K_SINK (at least once, with a stable id for consumers to dedupe), then
// `status.notified` so that it is not asked again.
import { CONDITION_SUCCEEDED, type CascadeRun, type TerminalPhase } from '../api/cascade-run.ts';
import { RUN_FAILED, RUN_SUCCEEDED, type RunEndEvent } from '../api/events.ts';
import { apiErrorKind } from '../kube/errors.ts';
import { conflictPause } from './conflict-pause.ts';
import type { EngineDeps } from './deps.ts';
import { count } from './operator-counters.ts';

const MAX_ATTEMPTS = 10;

export function runEndEvent(deps: EngineDeps, run: CascadeRun, phase: TerminalPhase): RunEndEvent {
  const s = run.status ?? {};
  return {
    id: `${run.metadata.uid ?? run.metadata.name}-${phase.toLowerCase()}`,
    type: phase === 'Succeeded' ? RUN_SUCCEEDED : RUN_FAILED,
    source: `/cascade/${deps.config.namespace}/${deps.config.scenarioName}`,
    subject: run.metadata.name,
    data: {
      runname: run.metadata.name, iuid: run.spec.pid, oname: run.spec.ob, sname: run.spec.src,
      phase, info: s.info, result: s.result ?? [],
      reason: s.conditions?.find((c) => c.type === CONDITION_SUCCEEDED)?.reason,
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

export async function finishRun(deps: EngineDeps, run: CascadeRun, phase: TerminalPhase): Promise<CascadeRun> {
  await count(deps, { kind: 'ended', run: run.metadata.name, phase });
  await deps.notify(runEndEvent(deps, run, phase));
  return markNotified(deps, run);
}
