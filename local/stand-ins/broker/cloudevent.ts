// CloudEvents over HTTP as Knative Eventing's data plane reads and writes
// them (HTTP protocol binding 1.0, binary and structured JSON modes): what an
// ingress accepts, what a subscriber's reply is, and the extensions a
// dead-letter sink receives. Pure: bytes and headers in, events out.

/** A CloudEvent: its attributes (extensions included) as strings, and its data as bytes. */
export interface CloudEvent {
  attributes: Record<string, string>;
  data?: Uint8Array;
}

/** HTTP headers as Node gives them: names lower-cased. */
export type Headers = Record<string, string | string[] | undefined>;

export type Parsed =
  | { kind: 'event'; mode: 'binary' | 'structured'; event: CloudEvent }
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string };

const REQUIRED = ['specversion', 'id', 'source', 'type'] as const;
const STRUCTURED = 'application/cloudevents+json';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function mediaType(headers: Headers): string {
  return (header(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function validated(mode: 'binary' | 'structured', event: CloudEvent): Parsed {
  const missing = REQUIRED.filter((a) => !event.attributes[a]);
  if (missing.length > 0) return { kind: 'invalid', reason: `${mode} CloudEvent without ${missing.join(', ')}` };
  if (event.attributes.specversion !== '1.0')
    return { kind: 'invalid', reason: `specversion ${event.attributes.specversion} is not 1.0` };
  return { kind: 'event', mode, event };
}

function decodeHeaderValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function binary(headers: Headers, body: Uint8Array): Parsed {
  const attributes: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.startsWith('ce-') && name.length > 3)
      attributes[name.slice(3)] = decodeHeaderValue(header(headers, name) ?? '');
  }
  const type = header(headers, 'content-type');
  if (type) attributes.datacontenttype = type;
  return validated('binary', body.length > 0 ? { attributes, data: body } : { attributes });
}

const isJsonType = (type: string | undefined) =>
  type === undefined || /^application\/(.+\+)?json(;|$)/i.test(type) || /^text\/json(;|$)/i.test(type);

function structured(body: Uint8Array): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body));
  } catch {
    return { kind: 'invalid', reason: 'structured CloudEvent whose body is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { kind: 'invalid', reason: 'structured CloudEvent that is not a JSON object' };
  const { data, data_base64: base64, ...rest } = parsed as Record<string, unknown>;
  const attributes = Object.fromEntries(
    Object.entries(rest)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
  const event: CloudEvent = { attributes };
  if (typeof base64 === 'string') event.data = Buffer.from(base64, 'base64');
  else if (data !== undefined) {
    if (attributes.datacontenttype === undefined) attributes.datacontenttype = 'application/json';
    event.data = encoder.encode(
      typeof data === 'string' && !isJsonType(attributes.datacontenttype) ? data : JSON.stringify(data),
    );
  }
  return validated('structured', event);
}

/**
 * The CloudEvent an HTTP message carries: structured when its media type is
 * `application/cloudevents+json`, binary when it has a `ce-specversion`
 * header, else none (the Go SDK's rule for telling an event from other
 * content). Batches are refused.
 */
export function parseMessage(headers: Headers, body: Uint8Array): Parsed {
  const type = mediaType(headers);
  if (type.startsWith('application/cloudevents-batch'))
    return { kind: 'invalid', reason: 'batched CloudEvents are not supported' };
  if (type === STRUCTURED) return structured(body);
  if (type.startsWith('application/cloudevents'))
    return { kind: 'invalid', reason: `event format ${type} is not supported` };
  if (header(headers, 'ce-specversion') !== undefined) return binary(headers, body);
  return { kind: 'none' };
}

/** A header value as the binding writes it: printable ASCII but `%` and `"` as is, the rest percent-encoded. */
function encodeHeaderValue(value: string): string {
  return [...value]
    .map((c) => (/^[\x20-\x7e]$/.test(c) && c !== '%' && c !== '"' ? c : encodeURIComponent(c)))
    .join('');
}

/** A CloudEvent as a binary-mode HTTP request (Knative's default delivery format). */
export function toBinary(event: CloudEvent): { headers: Record<string, string>; body: Uint8Array } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.attributes)) {
    if (name === 'datacontenttype') headers['content-type'] = value;
    else headers[`ce-${name}`] = encodeHeaderValue(value);
  }
  return { headers, body: event.data ?? new Uint8Array() };
}

export type ReplyMeaning =
  | { kind: 'delivered' }
  | { kind: 'reply'; event: CloudEvent }
  /** `subscriber`: the status and body are the subscriber's own (a non-2xx), not the filter's 502. */
  | { kind: 'failed'; status: number; body: Uint8Array; subscriber: boolean };

export const NOT_A_CLOUDEVENT =
  'received a non-empty response not recognized as CloudEvent. The response MUST be either empty or a valid CloudEvent';

/**
 * What a subscriber's answer means to the Broker's filter:
 * - a non-2xx is a failure with its status and body;
 * - a 2xx with an empty body that is no CloudEvent is delivered;
 * - a 2xx carrying a valid CloudEvent is a reply event;
 * - any other 2xx body is a failure answered 502, as the filter does
 *   (knative/eventing pkg/broker/filter/filter_handler.go).
 * Like the filter, this reads the body of any 2xx, 202 included. The filter's
 * 502 has no body: `body` here holds its reason for the stand-in's log only.
 */
export function replyMeaning(status: number, headers: Headers, body: Uint8Array): ReplyMeaning {
  if (status < 200 || status > 299) return { kind: 'failed', status, body, subscriber: true };
  const parsed = parseMessage(headers, body);
  if (parsed.kind === 'event') return { kind: 'reply', event: parsed.event };
  if (parsed.kind === 'none' && body.length === 0) return { kind: 'delivered' };
  const reason = parsed.kind === 'invalid' ? `malformed reply event: ${parsed.reason}` : NOT_A_CLOUDEVENT;
  return { kind: 'failed', status: 502, body: encoder.encode(reason), subscriber: false };
}

/** knativeerrordata's limit: the base64 of the failure body, in characters. */
export const ERROR_DATA_MAX = 1024;
/** The largest failure body whose base64 fits ERROR_DATA_MAX: a larger one makes Knative's dispatcher panic. */
export const ERROR_BODY_MAX = (ERROR_DATA_MAX / 4) * 3;

export type DeadLetter =
  | { kind: 'event'; event: CloudEvent }
  /** Knative's dispatcher would panic: the event is lost, with every other one in flight. */
  | { kind: 'panic'; bytes: number };

/**
 * The event a dead-letter sink receives, as Knative's dispatcher builds it
 * (pkg/kncloudevents/event_dispatcher.go, dispatchExecutionInfoTransformers).
 * The dispatcher adds three extensions: knativeerrordest (the subscriber),
 * knativeerrorcode (its last status) and knativeerrordata (its last body,
 * base64). It adds them only when the Broker's filter answered with its error
 * JSON. The filter does so when the subscriber gave a non-2xx, or no answer at
 * all (code 500, data `dispatch error: ...`). A per-attempt timeout or the
 * filter's 502 for a 2xx that is no CloudEvent leaves the event as it was. The
 * dispatcher base64-encodes the body into a 1024-byte buffer: a body over 768
 * bytes overruns it and the dispatcher panics (`panic` here).
 */
export function deadLetter(
  event: CloudEvent,
  failure: { extensions: boolean; dest: string; status: number; body: Uint8Array },
): DeadLetter {
  if (!failure.extensions) return { kind: 'event', event };
  if (failure.body.length > ERROR_BODY_MAX) return { kind: 'panic', bytes: failure.body.length };
  const data = Buffer.from(failure.body).toString('base64');
  return {
    kind: 'event',
    event: {
      ...event,
      attributes: {
        ...event.attributes,
        knativeerrordest: failure.dest,
        knativeerrorcode: String(failure.status),
        knativeerrordata: data,
      },
    },
  };
}
