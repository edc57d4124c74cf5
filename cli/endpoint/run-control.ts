// cancel and resume as the run-control contract has them: a CloudEvent in
// binary mode, data `{runname}`, answered 200 with an empty body. A function
// that predates run control answers 400 "unsupported event type": the CLI
// says run control is not available on that deployment. Pure.
import { randomUUID } from 'node:crypto';
import { RUN_CANCEL_REQUESTED, RUN_RESUME_REQUESTED } from '../../shared/api/events.ts';

export const CANCEL_REQUESTED = RUN_CANCEL_REQUESTED;
export const RESUME_REQUESTED = RUN_RESUME_REQUESTED;
export type Action = 'cancel' | 'resume';

export const TYPE_OF: Record<Action, string> = { cancel: CANCEL_REQUESTED, resume: RESUME_REQUESTED };

export function controlRequest(
  action: Action,
  runname: string,
  id: string = randomUUID(),
): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-source': '/kubectl-cascade',
      'ce-type': TYPE_OF[action],
    },
    body: JSON.stringify({ runname }),
  };
}

export type ControlOutcome = { ok: true } | { ok: false; unavailable: boolean; message: string };

/** What a reply to a control request means. */
export function controlOutcome(action: Action, status: number, body: string): ControlOutcome {
  if (status >= 200 && status < 300) return { ok: true };
  let error = body.trim();
  try {
    error = String((JSON.parse(body) as { error?: unknown }).error ?? error);
  } catch {
    /* not JSON: the text as it is */
  }
  if (status === 400 && /unsupported event type|unknown event type/i.test(error)) {
    return {
      ok: false,
      unavailable: true,
      message: `run control is not available yet on this deployment: the function does not take ${TYPE_OF[action]} (it answered 400: ${error})`,
    };
  }
  return { ok: false, unavailable: false, message: `${action} refused: ${status} ${error}`.trimEnd() };
}
