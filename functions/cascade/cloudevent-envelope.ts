// Is what arrived a CloudEvent, and a whole one (HTTP protocol binding 1.0)?
// Checked before faas-js-runtime hands the request to the CloudEvents SDK,
// which lets through what the README refuses:
// - it takes a binary event for one only when `ce-id` is set; any other `ce-*`
//   headers alone make a plain body;
// - it skips validation for any specversion but 1.0 (`9.9` passes);
// - it fills a structured event's missing `specversion` and `id` with defaults.
// Pure.
import { quote } from '../../shared/api/reason.ts';

export type Headers = Record<string, string | string[] | undefined>;

export type Envelope =
  { kind: 'plain' } | { kind: 'event'; mode: 'binary' | 'structured' } | { kind: 'malformed'; reason: string };

export const SPEC_VERSION = '1.0';
const REQUIRED = ['specversion', 'id', 'source', 'type'] as const;
const STRUCTURED = 'application/cloudevents+json';

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function mediaType(headers: Headers): string {
  return (header(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The reason an event's attributes are not those of a CloudEvent 1.0, or undefined when they are. */
function attributeProblem(mode: 'binary' | 'structured', attrs: Record<string, unknown>): string | undefined {
  const named = (a: string) => (mode === 'binary' ? `${a} (header ce-${a})` : a);
  const missing = REQUIRED.filter((a) => attrs[a] === undefined);
  if (missing.length > 0) {
    return `${mode} CloudEvent: missing required attribute${missing.length > 1 ? 's' : ''} ${missing.map(named).join(', ')}`;
  }
  const bad = REQUIRED.find((a) => typeof attrs[a] !== 'string' || attrs[a] === '');
  if (bad) return `${mode} CloudEvent: attribute ${named(bad)} must be a non-empty string`;
  if (attrs.specversion !== SPEC_VERSION)
    return `${mode} CloudEvent: specversion ${quote(attrs.specversion)} is not supported, only "${SPEC_VERSION}"`;
  return undefined;
}

function structuredBody(body: unknown): Record<string, unknown> | string {
  let parsed = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    try {
      parsed = JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
    } catch {
      return 'structured CloudEvent: the body is not JSON';
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'structured CloudEvent: the body must be a JSON object';
  return parsed as Record<string, unknown>;
}

function structured(type: string, body: unknown): Envelope {
  if (type !== STRUCTURED)
    return {
      kind: 'malformed',
      reason: `structured CloudEvents of media type ${quote(type)} are not supported, only ${STRUCTURED}`,
    };
  const event = structuredBody(body);
  if (typeof event === 'string') return { kind: 'malformed', reason: event };
  const problem = attributeProblem('structured', event);
  return problem ? { kind: 'malformed', reason: problem } : { kind: 'event', mode: 'structured' };
}

function binary(headers: Headers): Envelope {
  const attrs = Object.fromEntries(REQUIRED.map((a) => [a, header(headers, `ce-${a}`)]));
  const problem = attributeProblem('binary', attrs);
  return problem ? { kind: 'malformed', reason: problem } : { kind: 'event', mode: 'binary' };
}

/**
 * What a request is: a structured CloudEvent (content type
 * `application/cloudevents+json`), a binary one (any `ce-*` header: a request
 * that has some is a CloudEvent and must have them all), or a plain body.
 * `headers` are Node's (names lower-cased); `body` as the runtime parsed it.
 */
export function envelopeOf(headers: Headers, body: unknown): Envelope {
  const type = mediaType(headers);
  if (type.startsWith('application/cloudevents-batch')) {
    return { kind: 'malformed', reason: 'batched CloudEvents are not supported: send one event per request' };
  }
  if (type.startsWith('application/cloudevents')) return structured(type, body);
  if (Object.keys(headers).some((name) => name.toLowerCase().startsWith('ce-'))) return binary(headers);
  return { kind: 'plain' };
}
