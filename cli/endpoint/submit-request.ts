// The run request `submit` sends, and what its reply means. Pure.
import { randomUUID } from 'node:crypto';
import { RUN_REQUESTED } from '../../shared/api/events.ts';
import type { Endpoint } from './discover.ts';

export interface SubmitFields {
  iuid: string;
  turlinfo: string;
  scenario?: string;
}

/** A plain JSON post to the function (its reply names the run); a binary CloudEvent to the Broker. */
export function submitRequest(
  endpoint: Endpoint,
  fields: SubmitFields,
  id: string = randomUUID(),
): { headers: Record<string, string>; body: string } {
  const data = {
    turlinfo: fields.turlinfo,
    iuid: fields.iuid,
    ...(fields.scenario ? { scenario: fields.scenario } : {}),
  };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.kind === 'broker')
    Object.assign(headers, {
      'ce-specversion': '1.0',
      'ce-id': id,
      'ce-source': '/kubectl-cascade',
      'ce-type': RUN_REQUESTED,
    });
  return { headers, body: JSON.stringify(data) };
}

export type SubmitReply =
  { ok: true; run?: string; namespace?: string; scenario?: string; warning?: string } | { ok: false; message: string };

function jsonBody(text: string): { run?: unknown; namespace?: unknown; scenario?: unknown; error?: unknown } {
  try {
    return JSON.parse(text) as ReturnType<typeof jsonBody>;
  } catch {
    return {}; // a CloudEvent's reply has no body
  }
}

export function submitReply(endpoint: Endpoint, fields: SubmitFields, status: number, text: string): SubmitReply {
  const body = jsonBody(text);
  if (status < 200 || status >= 300)
    return {
      ok: false,
      message: `run request refused: ${status} ${typeof body.error === 'string' ? body.error : text.trim()}`.trimEnd(),
    };
  if (endpoint.kind === 'broker') return { ok: true };
  if (typeof body.run !== 'string')
    return { ok: false, message: `the reply names no run: ${status} ${text.trim()}`.trimEnd() };
  const scenario = typeof body.scenario === 'string' ? body.scenario : undefined;
  const namespace = typeof body.namespace === 'string' && body.namespace !== '' ? body.namespace : undefined;
  return {
    ok: true,
    run: body.run,
    ...(namespace ? { namespace } : {}),
    ...(scenario ? { scenario } : {}),
    ...scenarioWarning(fields.scenario, scenario),
  };
}

/**
 * The scenario a reply's `scenario` names. The reply holds where the run's
 * scenario came from: `CascadeAutoOperator/<name>`, or `file:<path>` for the
 * file that stands in for the function's own scenario. A bare name is taken as it is.
 */
export function scenarioOfSource(source: string): string | undefined {
  if (source.startsWith('CascadeAutoOperator/')) return source.slice('CascadeAutoOperator/'.length);
  if (source.startsWith('file:')) return undefined;
  return source;
}

/** A function that predates the run-start option ignores `scenario`: its reply names the scenario it used. */
function scenarioWarning(asked: string | undefined, source: string | undefined): { warning?: string } {
  const used = source === undefined ? undefined : scenarioOfSource(source);
  if (!asked || !used || asked === used) return {};
  return {
    warning: `this deployment does not take --scenario yet: the run was started with scenario ${used}, not ${asked}`,
  };
}
