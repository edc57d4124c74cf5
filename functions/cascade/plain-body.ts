// A plain body (no CloudEvent): what the function takes is a JSON object. Pure.
import type { Headers } from './cloudevent-envelope.ts';

export const NOT_AN_OBJECT =
  'the body must be a JSON object: a run request {turlinfo, iuid, oname?, sname?} or a module result {runname, modulename, moduleresult}';

/**
 * A body sent as `application/json` that is a JSON string. faas-js-runtime's
 * invoker parses such a string a second time. When that fails, it prints the
 * SyntaxError's stack with console.error. The body is no JSON object either
 * way, so it is refused before it gets there.
 */
export function isJsonString(headers: Headers, body: unknown): boolean {
  return headers['content-type'] === 'application/json' && typeof body === 'string';
}
