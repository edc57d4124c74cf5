// What a cancel or resume did, read from the run before the request and
// after it. The function answers a CloudEvent with an empty body, so the run
// is the only witness: cancelled, already finished, resumed, not resumable. Pure.
import { ANNOTATION_CANCEL_REQUESTED_AT, ANNOTATION_RESUME_REQUESTED_AT } from '../../shared/names.ts';
import { isFinal, phaseOf, type RunObject } from './run-object.ts';

export type ControlAction = 'cancel' | 'resume';

/** done: the run shows the request handled; nothing: it changed nothing; pending: not shown yet. */
export type ControlResult = { state: 'done' | 'nothing'; message: string } | { state: 'pending' };

const RESUMABLE = ['Failed', 'Cancelled'];

function cancelResult(name: string, before: RunObject, after: RunObject): ControlResult {
  if (isFinal(before))
    return { state: 'nothing', message: `cascaderun/${name} had already ended ${phaseOf(before)}: nothing to cancel` };
  if (phaseOf(after) === 'Cancelled') return { state: 'done', message: `cascaderun/${name} cancelled` };
  if (isFinal(after))
    return {
      state: 'nothing',
      message: `cascaderun/${name} ended ${phaseOf(after)} before the cancel: nothing to cancel`,
    };
  return { state: 'pending' };
}

function resumeResult(name: string, before: RunObject, after: RunObject): ControlResult {
  if (!RESUMABLE.includes(phaseOf(before))) {
    return {
      state: 'nothing',
      message: `cascaderun/${name} is ${phaseOf(before)}: only a Failed or Cancelled run can be resumed`,
    };
  }
  if ((after.status?.resumes ?? 0) > (before.status?.resumes ?? 0))
    return { state: 'done', message: `cascaderun/${name} resumed (phase ${phaseOf(after)})` };
  return { state: 'pending' };
}

export function controlResult(action: ControlAction, name: string, before: RunObject, after: RunObject): ControlResult {
  return action === 'cancel' ? cancelResult(name, before, after) : resumeResult(name, before, after);
}

/** The annotation that asks for the action through the API server, as `kubectl annotate` does. */
export const REQUEST_ANNOTATION: Record<ControlAction, string> = {
  cancel: ANNOTATION_CANCEL_REQUESTED_AT,
  resume: ANNOTATION_RESUME_REQUESTED_AT,
};

/** The annotation's value the run records as handled last. */
export function handledValue(action: ControlAction, run: RunObject): string | undefined {
  return action === 'cancel' ? run.status?.lastHandledCancel : run.status?.lastHandledResume;
}

/** A value for the annotation that no earlier request used: the time, made unique against the value there now. */
export function requestValue(now: number, current: string | undefined): string {
  const at = new Date(now).toISOString();
  return at === current ? new Date(now + 1).toISOString() : at;
}

/** The JSON patch that sets the annotation (and the annotations map, when the run has none). */
export function annotationPatch(run: RunObject, key: string, value: string): object[] {
  if (!run.metadata.annotations) return [{ op: 'add', path: '/metadata/annotations', value: { [key]: value } }];
  return [{ op: 'add', path: `/metadata/annotations/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, value }];
}
