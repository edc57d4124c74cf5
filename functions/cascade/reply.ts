// How the function answers an outcome of the engine: the status a sender (or
// Knative delivery) acts on, and a JSON body (`{error}` with the reason, one
// line of at most REASON_MAX characters whoever wrote it). A CloudEvent
// delivery that succeeded is answered with an empty body (see toDelivery).
import { oneLine } from '../../shared/api/reason.ts';
import type { Outcome } from '../../shared/engine/entry/outcome.ts';

export interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  /** JSON, or '' (no body at all) for a CloudEvent delivery that succeeded. */
  body: Record<string, unknown> | '';
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
  return {
    statusCode: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) },
    body: { error: 'rate limit exceeded, retry later' },
  };
}

/**
 * The reply to a CloudEvent delivery. A Knative Broker's filter (and a
 * Channel's dispatcher) reads the body of a 2xx as a reply event: it must be
 * empty or a CloudEvent, else the delivery counts as failed (502) and is
 * retried. So a success is the same status with no body: 200, not 202.
 * What the event changes is durable before the reply, and that is what 200
 * says. knative/specs data-plane.md: "200 ... processed successfully, with or
 * without a response payload"; 202 would say "accepted, not completed". A failure keeps its
 * `{error}` body: Knative reads no reply event from a non-2xx and hands the
 * body to the dead-letter sink (extension `knativeerrordata`).
 */
export function toDelivery(r: Reply): Reply {
  if (r.statusCode < 200 || r.statusCode > 299) return r;
  return { statusCode: r.statusCode, headers: { ...r.headers, 'content-type': 'text/plain; charset=utf-8' }, body: '' };
}
