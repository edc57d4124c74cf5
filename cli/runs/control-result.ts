// What a cancel or resume did, read from the run before the request and
// after it. The function answers a CloudEvent with an empty body, so the run
// is the only witness: cancelled, already finished, resumed, not resumable. Pure.
import { isFinal, phaseOf, type RunObject } from './run-object.ts';

export type ControlAction = 'cancel' | 'resume';

/** done: the run shows the request handled; nothing: it changed nothing; pending: not shown yet. */
export type ControlResult = { state: 'done' | 'nothing'; message: string } | { state: 'pending' };

const RESUMABLE = ['Failed', 'Cancelled'];

function cancelResult(name: string, before: RunObject, after: RunObject): ControlResult {
  if (isFinal(before)) return { state: 'nothing', message: `cascaderun/${name} had already ended ${phaseOf(before)}: nothing to cancel` };
  if (phaseOf(after) === 'Cancelled') return { state: 'done', message: `cascaderun/${name} cancelled` };
  if (isFinal(after)) return { state: 'nothing', message: `cascaderun/${name} ended ${phaseOf(after)} before the cancel: nothing to cancel` };
  return { state: 'pending' };
}

function resumeResult(name: string, before: RunObject, after: RunObject): ControlResult {
  if (!RESUMABLE.includes(phaseOf(before))) {
    return { state: 'nothing', message: `cascaderun/${name} is ${phaseOf(before)}: only a Failed or Cancelled run can be resumed` };
  }
  if ((after.status?.resumes ?? 0) > (before.status?.resumes ?? 0)) return { state: 'done', message: `cascaderun/${name} resumed (phase ${phaseOf(after)})` };
  return { state: 'pending' };
}

export function controlResult(action: ControlAction, name: string, before: RunObject, after: RunObject): ControlResult {
  return action === 'cancel' ? cancelResult(name, before, after) : resumeResult(name, before, after);
}
