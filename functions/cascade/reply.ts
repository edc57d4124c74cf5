// How the function answers an outcome of the engine: the status a sender (or
// Knative delivery) acts on, and a JSON body (`{error}` with the reason, one
// line of at most REASON_MAX characters whoever wrote it).
import { oneLine } from '../../shared/api/reason.ts';
import type { Outcome } from '../../shared/engine/outcome.ts';

export interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const STATUS: Record<Outcome['kind'], number> = { accepted: 200, invalid: 400, unavailable: 503, failed: 500 };

export function statusOf(outcome: Outcome): number {
  return STATUS[outcome.kind];
}

export function reply(outcome: Outcome, headers: Record<string, string> = {}): Reply {
  const body = outcome.kind === 'accepted' ? outcome.body : { error: oneLine(outcome.reason) };
  return { statusCode: statusOf(outcome), headers: { 'content-type': 'application/json', ...headers }, body };
}

/** A request refused before it reached the function (by the runtime or the CloudEvent check): `{error}`, as any other. */
export function refused(statusCode: number, reason: string): Reply {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: { error: oneLine(reason) } };
}

/** The token bucket is empty: 429, retry after the given seconds. */
export function rateLimited(retryAfterSeconds: number): Reply {
  return { statusCode: 429, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) }, body: { error: 'rate limit exceeded, retry later' } };
}
