// A Broker's ingress as the host reaches it, and a CloudEvent in binary mode
// POSTed there as a caller outside the cluster sends one. `npm start`, the
// end-to-end tests and the Knative benches share them.
import { CoreV1Api } from '@kubernetes/client-node';
import { apiClient } from '../kube-client.ts';
import { kubeConfigFromFile } from '../kube.ts';
import { EVENTING_NAMESPACE } from './eventing/manifests.ts';

/** The URL of Broker `broker` of `namespace`: the broker-ingress Service's ClusterIP, which the host routes to. */
export async function brokerIngressUrl(kubeconfig: string, namespace: string, broker = 'default'): Promise<string> {
  const core = apiClient(kubeConfigFromFile(kubeconfig), CoreV1Api);
  const service = await core.readNamespacedService({ namespace: EVENTING_NAMESPACE, name: 'broker-ingress' });
  return `http://${service.spec!.clusterIP}/${namespace}/${broker}`;
}

export interface OutgoingEvent {
  id: string;
  type: string;
  source: string;
  data?: unknown;
  extensions?: Record<string, string>;
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
