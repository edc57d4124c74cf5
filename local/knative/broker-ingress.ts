// A Broker's ingress as the host reaches it, and a CloudEvent in binary mode
// POSTed there as a caller outside the cluster sends one. `npm start`, the
// end-to-end tests and the Knative benches share them.
import { randomUUID } from 'node:crypto';
import { RUN_REQUESTED } from '../../shared/api/events.ts';
import { REAL_NODE } from '../node/node-config.ts';

/** The URL of Broker `broker` of `namespace`: the real node's 127.0.0.1 port for the broker-ingress Service. */
export function brokerIngressUrl(namespace: string, broker = 'default'): string {
  return `http://127.0.0.1:${REAL_NODE.brokerIngress.hostPort}/${namespace}/${broker}`;
}

export interface OutgoingEvent {
  id: string;
  type: string;
  source: string;
  data?: unknown;
  extensions?: Record<string, string>;
}

/** A run request of scenario `scenario` for `iuid` from `source`, with a new id; its input `turlinfo`. */
export function runRequestEvent(source: string, iuid: string, scenario: string, turlinfo: string): OutgoingEvent {
  return { id: randomUUID(), type: RUN_REQUESTED, source, data: { turlinfo, iuid, scenario } };
}

/** POSTs `event` to `url` and reads the whole answer; its HTTP status. */
export async function postEvent(url: string, event: OutgoingEvent): Promise<number> {
  const extensions = Object.entries(event.extensions ?? {}).map(([name, value]) => [`ce-${name}`, value]);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'ce-specversion': '1.0',
      'ce-id': event.id,
      'ce-type': event.type,
      'ce-source': event.source,
      'content-type': 'application/json',
      ...Object.fromEntries(extensions),
    },
    body: JSON.stringify(event.data ?? {}),
  });
  await response.arrayBuffer();
  return response.status;
}
