// A binary CloudEvent read from its headers and parsed body, without the
// CloudEvents SDK, when it is one the SDK would take as it is: the
// ApiServerSource's change events and the Broker's deliveries (every request
// but the plain module results and run requests a step transition brings).
// The SDK copies the headers, builds a CloudEvent, throws away two eagerly
// built ValidationErrors per event and validates the event against its JSON
// schema: a large part of the function's CPU per event. Here only events whose
// every attribute is one the SDK accepts by construction are taken (else
// undefined, and the SDK reads the event as before, with its refusals): the
// four required attributes as cloudevent-envelope.ts checked them, an optional
// non-empty `subject`, extensions named in [a-z0-9], a `source` of a plain
// shape that is a URI reference, JSON data (`content-type: application/json`)
// that is a JSON object. Pure.
import type { Headers } from './cloudevent-envelope.ts';

export interface CheckedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Attributes the SDK reads from `ce-*` headers, beyond the four required and `subject`: left to it. */
const LEFT_TO_THE_SDK = new Set(['time', 'dataschema', 'datacontenttype', 'datacontentencoding', 'schemaurl', 'data']);
const REQUIRED = new Set(['specversion', 'id', 'source', 'type']);
const EXTENSION_NAME = /^[a-z0-9]+$/;
/** An absolute URI of scheme, host and path (https://kubernetes.default.svc), or an absolute path (/bench): URI references of any reading. */
const PLAIN_SOURCE = /^(?:[a-z][a-z0-9+.-]*:\/\/[a-z0-9.-]+(?::[0-9]{1,5})?)?(?:\/[a-z0-9._~-]+)*\/?$/i;

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
  if (typeof id !== 'string' || typeof type !== 'string' || typeof source !== 'string' || specversion !== '1.0') return undefined;
  if (id === '' || type === '' || source === '' || !PLAIN_SOURCE.test(source) || !attributesTaken(headers)) return undefined;
  return { id, type, data: body };
}
