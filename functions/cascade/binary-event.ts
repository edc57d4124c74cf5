// A binary CloudEvent read from its headers and parsed body, without the
// CloudEvents SDK, when it is one the SDK would take as it is. Such events are
// the ApiServerSource's change events and the Broker's deliveries: every
// request a step transition brings but the plain module results and run
// requests. The SDK copies the headers, builds a CloudEvent, throws away two
// eagerly built ValidationErrors per event and validates the event against its
// JSON schema: a large part of the function's CPU per event. Here only events
// whose every attribute is one the SDK accepts by construction are taken.
// Any other event gives undefined, and the SDK reads it, with its refusals.
// The attributes taken:
// - the four required attributes as cloudevent-envelope.ts checked them;
// - an optional non-empty `subject`;
// - an RFC 3339 `time` (the ApiServerSource sets it on every event);
// - extensions named in [a-z0-9];
// - a `source` of a plain shape that is a URI reference;
// - JSON data (`content-type: application/json`) that is a JSON object.
// Pure.
import type { Headers } from './cloudevent-envelope.ts';

export interface CheckedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Attributes the SDK reads from `ce-*` headers, beyond the four required, `subject` and `time`: left to it. */
const LEFT_TO_THE_SDK = new Set(['dataschema', 'datacontenttype', 'datacontentencoding', 'schemaurl', 'data']);
const REQUIRED = new Set(['specversion', 'id', 'source', 'type']);
const EXTENSION_NAME = /^[a-z0-9]+$/;
/** An absolute URI of scheme, host and path (https://kubernetes.default.svc), or an absolute path (/bench): URI references of any reading. */
const PLAIN_SOURCE = /^(?:[a-z][a-z0-9+.-]*:\/\/[a-z0-9.-]+(?::[0-9]{1,5})?)?(?:\/[a-z0-9._~-]+)*\/?$/i;

/** RFC 3339 `date-time`: a calendar date, a time to the second with an optional fraction, and an offset. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && !leap ? 28 : (DAYS[month - 1] ?? 0);
}

/** Whether `value` is an RFC 3339 date-time; a leap second (:60) is left to the SDK. */
export function isRfc3339(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = m
    .slice(1)
    .map((x) => Number(x ?? 0)) as number[];
  const dateOk = day! >= 1 && day! <= daysIn(year!, month!);
  return dateOk && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHour! <= 23 && offsetMinute! <= 59;
}

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && !(body instanceof Uint8Array);
}

function attributesTaken(headers: Headers): boolean {
  for (const name of Object.keys(headers)) {
    if (!name.startsWith('ce-')) continue;
    const attribute = name.slice(3);
    const value = headers[name];
    if (typeof value !== 'string') return false;
    if (REQUIRED.has(attribute)) continue;
    if (LEFT_TO_THE_SDK.has(attribute) || !EXTENSION_NAME.test(attribute)) return false;
    if (attribute === 'subject' && value === '') return false;
    if (attribute === 'time' && !isRfc3339(value)) return false;
  }
  return true;
}

/**
 * The event of a request the envelope check found a binary CloudEvent 1.0
 * (`headers` as Node gives them, names lower-cased; `body` as the runtime
 * parsed it), when the SDK would take it as it is; undefined otherwise.
 */
export function checkedBinaryEvent(headers: Headers, body: unknown): CheckedEvent | undefined {
  if (headers['content-type'] !== 'application/json' || !isObject(body)) return undefined;
  const { 'ce-id': id, 'ce-type': type, 'ce-source': source, 'ce-specversion': specversion } = headers;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof source !== 'string' || specversion !== '1.0')
    return undefined;
  if (id === '' || type === '' || source === '' || !PLAIN_SOURCE.test(source) || !attributesTaken(headers))
    return undefined;
  return { id, type, data: body };
}
