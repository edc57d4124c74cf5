// cancel and resume from the page, through the API server as `kubectl
// cascade cancel` sends them: the run's request annotation gets a new value,
// and the answer waits (a while) for the run's status to record it handled.
// The API server's refusal (Forbidden, NotFound) is passed on as it is.
import { describeError, type Kube } from '../kube/connect.ts';
import { getRun, patchRun } from '../kube/runs.ts';
import {
  annotationPatch,
  controlResult,
  handledValue,
  REQUEST_ANNOTATION,
  requestValue,
  type ControlAction,
} from '../runs/control-result.ts';
import type { RunObject } from '../runs/run-object.ts';
import { runKey, type ActionAnswer } from './protocol.ts';
import type { UiState } from './state.ts';

/** The API server's status code of an error, if it has one. */
function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : undefined;
}

export function refusal(error: unknown): ActionAnswer {
  const status = statusOf(error);
  return { state: 'error', message: describeError(error), ...(status ? { status } : {}) };
}

/** The run once it records `value` handled, or the latest seen when `waitMs` passes first. */
interface Awaited {
  key: string;
  action: ControlAction;
  value: string;
}

function handled(state: UiState, { key, action, value }: Awaited, waitMs: number) {
  return new Promise<RunObject | undefined>((resolve) => {
    const done = (run: RunObject | undefined) => {
      stop();
      clearTimeout(timer);
      resolve(run);
    };
    const stop = state.onRun((run) => {
      if (runKey(run.metadata.namespace ?? '', run.metadata.name ?? '') === key && handledValue(action, run) === value)
        done(run);
    });
    const timer = setTimeout(() => done(state.runs.get(key)), waitMs);
    const now = state.runs.get(key);
    if (now && handledValue(action, now) === value) done(now);
  });
}

export interface ActionRequest {
  action: ControlAction;
  namespace: string;
  name: string;
  waitMs: number;
}

export async function runAction(kube: Kube, state: UiState, req: ActionRequest): Promise<ActionAnswer> {
  const { action, namespace, name } = req;
  try {
    const before = await getRun(kube, namespace, name);
    const key = REQUEST_ANNOTATION[action];
    const value = requestValue(Date.now(), before.metadata.annotations?.[key]);
    await patchRun(kube, namespace, name, annotationPatch(before, key, value));
    const after = await handled(state, { key: runKey(namespace, name), action, value }, req.waitMs);
    const result = after ? controlResult(action, name, before, after) : { state: 'pending' as const };
    if (result.state !== 'pending') return result;
    return {
      state: 'pending',
      message: `the ${action} is requested (annotation ${key}=${value}); cascaderun/${name} has not handled it yet`,
    };
  } catch (error) {
    return refusal(error);
  }
}
