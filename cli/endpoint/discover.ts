// Where the CLI sends requests when --url is not given: the Knative Service's
// status.url (knative/service.yaml: `cascade`), else the Broker's address
// (knative/broker.yaml: `default`), both only once Ready. Pure: the adapter
// reads the two objects (or finds none) and this decides.

export const SERVICE = { group: 'serving.knative.dev', version: 'v1', plural: 'services', name: 'cascade' } as const;
export const BROKER = { group: 'eventing.knative.dev', version: 'v1', plural: 'brokers', name: 'default' } as const;

interface KnativeObject {
  status?: {
    url?: string;
    address?: { url?: string };
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** A request goes as a plain JSON post to the function (its reply names the run), or as a CloudEvent to the Broker (202). */
export type Endpoint = { kind: 'function' | 'broker'; url: string };

export type Discovery = { ok: true; endpoint: Endpoint } | { ok: false; reason: string };

function ready(obj: KnativeObject): { ready: boolean; why: string } {
  const c = obj.status?.conditions?.find((x) => x.type === 'Ready');
  return {
    ready: c?.status === 'True',
    why: c
      ? `Ready is ${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`
      : 'no Ready condition yet',
  };
}

export function discoverEndpoint(
  service: KnativeObject | undefined,
  broker: KnativeObject | undefined,
  namespace: string,
): Discovery {
  const notes: string[] = [];
  if (service) {
    const r = ready(service);
    if (r.ready && service.status?.url) return { ok: true, endpoint: { kind: 'function', url: service.status.url } };
    notes.push(`Knative Service ${SERVICE.name}: ${r.ready ? 'no status.url' : r.why}`);
  } else notes.push(`no Knative Service ${SERVICE.name}`);
  if (broker) {
    const r = ready(broker);
    const url = broker.status?.address?.url;
    if (r.ready && url) return { ok: true, endpoint: { kind: 'broker', url } };
    notes.push(`Broker ${BROKER.name}: ${r.ready ? 'no status.address.url' : r.why}`);
  } else notes.push(`no Broker ${BROKER.name}`);
  return {
    ok: false,
    reason: `no URL to send to in namespace ${namespace} (${notes.join('; ')}): give one with --url`,
  };
}

/** A host only a pod reaches: a cluster Service's DNS name (Knative's cluster-local visibility gives one). */
export function isClusterLocal(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return /\.svc(\.cluster\.local)?\.?$/.test(host);
}

/** What to do when a cluster-local URL cannot be reached from here: the two ways that work from outside. */
export function clusterLocalHint(url: string, namespace: string): string {
  return (
    `${url} is cluster-local: only pods reach it. From outside the cluster, port-forward to the function ` +
    `(kubectl port-forward -n ${namespace} $(kubectl get pod -n ${namespace} -l serving.knative.dev/service=${SERVICE.name} -o name | head -1) 8080:8080) ` +
    'and give --url http://localhost:8080, or send the run request to the Broker from inside the cluster'
  );
}
