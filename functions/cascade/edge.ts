// The function's one HTTP edge: what arrived on `/` becomes Cascade's typed
// input here, once. The runtime's hook calls readRequest() with the headers
// and the parsed body. Its answer is a refusal, an event left to the
// CloudEvents SDK, or the input itself. The input then replaces the body the
// runtime hands the function, so the handler receives it as it is. An event
// the SDK read reaches the handler as the SDK's event, and inputOfEvent()
// makes the input of it. Pure.
import { checkedBinaryEvent } from './binary-event.ts';
import { envelopeOf, type Headers } from './cloudevent-envelope.ts';
import { fromCloudEvent, fromHttpBody, type IncomingEvent, type Request } from './inputs.ts';
import { isJsonString, NOT_AN_OBJECT } from './plain-body.ts';

const INPUT = Symbol('cascade.input');

/** A request as Cascade takes it: what to do, the CloudEvent's id, and whether it came as a CloudEvent. */
export interface Input {
  readonly [INPUT]: true;
  request: Request;
  /** The CloudEvent's id: the engine's log and a resume request's id. */
  eventId: string | undefined;
  /** A CloudEvent delivery: a success is answered with no body (reply.ts, toDelivery). */
  delivery: boolean;
}

export type Read =
  /** Answered 400 before the runtime reads it. */
  | { kind: 'refused'; reason: string }
  /** A whole CloudEvent of a shape the SDK reads and checks. */
  | { kind: 'sdk-event' }
  | { kind: 'input'; input: Input };

function input(request: Request, eventId: string | undefined, delivery: boolean): Input {
  return { [INPUT]: true, request, eventId, delivery };
}

/** The input of a CloudEvent, read by the SDK or from its headers. */
export function inputOfEvent(event: IncomingEvent): Input {
  return input(fromCloudEvent(event), event.id, true);
}

/**
 * What a request to `/` is (`headers` as Node gives them, names lower-cased;
 * `body` as the runtime parsed it): a refusal, an event left to the SDK, or
 * Cascade's input.
 */
export function readRequest(headers: Headers, body: unknown): Read {
  const envelope = envelopeOf(headers, body);
  if (envelope.kind === 'malformed') return { kind: 'refused', reason: envelope.reason };
  if (envelope.kind === 'plain') {
    if (isJsonString(headers, body)) return { kind: 'refused', reason: NOT_AN_OBJECT };
    return { kind: 'input', input: input(fromHttpBody(body), undefined, false) };
  }
  const checked = envelope.mode === 'binary' ? checkedBinaryEvent(headers, body) : undefined;
  return checked ? { kind: 'input', input: inputOfEvent(checked) } : { kind: 'sdk-event' };
}

/** Whether the runtime handed the function an input this module made. */
export function isInput(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && (value as Partial<Input>)[INPUT] === true;
}
