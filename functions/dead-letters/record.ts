// What the dead-letter sink logs of one request: the CloudEvent as the Broker
// sent it, binary or structured, with the reason of its last failed delivery
// decoded. Knative's dispatcher adds that reason as three extensions
// (knative/dead-letter-sink.yaml lists when): knativeerrordest, the URL it
// failed on; knativeerrorcode, the status; knativeerrordata, the reply's body
// in base64. A request that is no CloudEvent is logged as it came.
import { HTTP, type CloudEventV1 } from 'cloudevents';
import type { Headers } from '../cascade/cloudevent-envelope.ts';

export interface DeadLetter {
  /** The event's attributes, extensions included, and its data. */
  event?: Record<string, unknown>;
  /** The failed delivery's reply, decoded from knativeerrordata. */
  reply?: string;
  /** Why the request is no CloudEvent. */
  invalid?: string;
  /** The request's content type and body, when it is no CloudEvent. */
  raw?: { contentType?: string; body: string };
}

function decodeBase64(value: unknown): string | undefined {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

function flatHeaders(headers: Headers): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The record of one request to the sink. */
export function deadLetterRecord(headers: Headers, body: string): DeadLetter {
  const flat = flatHeaders(headers);
  try {
    const parsed = HTTP.toEvent({ headers: flat, body });
    const event: CloudEventV1<unknown> = Array.isArray(parsed) ? parsed[0]! : parsed;
    const attributes: Record<string, unknown> = { ...event };
    const reply = decodeBase64(attributes.knativeerrordata);
    return reply === undefined ? { event: attributes } : { event: attributes, reply };
  } catch (error) {
    return {
      invalid: error instanceof Error ? error.message : String(error),
      raw: { contentType: flat['content-type'], body },
    };
  }
}
