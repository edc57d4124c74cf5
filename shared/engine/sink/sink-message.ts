// The run-end CloudEvent as the CloudEvents SDK encodes it in binary mode,
// with K_CE_OVERRIDES' extensions. Apart from sink.ts so that the SDK (and
// its schema validator) loads when the first run ends, not with the engine.
import { CloudEvent, HTTP, type Message } from 'cloudevents';
import type { Extensions } from '../../ce-overrides.ts';
import type { RunEndEvent } from '../../api/events.ts';

/** The event as a binary-mode HTTP message: attributes and extensions in `ce-` headers, the data as JSON. Pure. */
export function binaryMessage(event: RunEndEvent, extensions: Extensions): Message {
  const ce = new CloudEvent({
    ...extensions,
    specversion: '1.0',
    id: event.id,
    type: event.type,
    source: event.source,
    subject: event.subject,
    time: event.time,
    datacontenttype: 'application/json',
    data: event.data,
  });
  return HTTP.binary(ce);
}
