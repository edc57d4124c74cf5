// The environment Knative Serving gives queue-proxy in a pod, for the ports of
// a process on this machine. It is computed from a Knative Service
// (knative/service.yaml) as the revision reconciler of knative.dev/serving
// v0.50.0 computes it: pkg/reconciler/revision/resources/queue.go, after the
// defaults of pkg/apis/serving/v1/revision_defaults.go. Pure: no I/O.

/** A Kubernetes probe as it appears in a container spec (the fields used here). */
export interface Probe {
  httpGet?: {
    path?: string;
    port?: number | string;
    host?: string;
    scheme?: string;
    httpHeaders?: { name: string; value: string }[];
  };
  tcpSocket?: { port?: number | string; host?: string };
  exec?: { command?: string[] };
  grpc?: { port?: number; service?: string };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

/** The part of a Knative Service that queue-proxy's environment comes from. */
export interface KnativeService {
  metadata?: { name?: string };
  spec?: {
    template?: {
      spec?: {
        containerConcurrency?: number;
        timeoutSeconds?: number;
        responseStartTimeoutSeconds?: number;
        idleTimeoutSeconds?: number;
        containers?: { readinessProbe?: Probe }[];
      };
    };
  };
}

export interface QueueProxyPlace {
  namespace: string;
  /** The function's port (the container port queue-proxy proxies to, on 127.0.0.1). */
  userPort: number;
  /** QUEUE_SERVING_PORT: where queue-proxy takes requests (8012 in a pod). */
  servingPort: number;
  /** QUEUE_SERVING_TLS_PORT (8112 in a pod; TLS stays off without certificates). */
  tlsPort: number;
  /** Where its Prometheus metrics are served (request-metrics-endpoint; :9091 in a pod). */
  metricsHost: string;
  metricsPort: number;
  /** Replaces the Service's containerConcurrency (tests use a small one). */
  containerConcurrency?: number;
}

/** config-defaults' revision-timeout-seconds when the Service sets none. */
export const DEFAULT_REVISION_TIMEOUT_SECONDS = 300;
export const REVISION_SUFFIX = '00001';

/** The Revision's defaults for the user container's readiness probe (revision_defaults.go). */
export function defaultedReadinessProbe(probe: Probe | undefined): Probe {
  const p: Probe = structuredClone(probe ?? {});
  if (!p.tcpSocket && !p.httpGet && !p.exec && !p.grpc) p.tcpSocket = {};
  if (!p.successThreshold) p.successThreshold = 1;
  if (p.periodSeconds) {
    if (!p.failureThreshold) p.failureThreshold = 3;
    if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  }
  return p;
}

/** The probe queue-proxy runs against the user container (queue.go's applyReadinessProbeDefaults). */
export function queueReadinessProbe(probe: Probe | undefined, userPort: number): Probe {
  const p = defaultedReadinessProbe(probe);
  const port = (declared: number | string | undefined) =>
    typeof declared === 'number' && declared !== 0 ? declared : userPort;
  if (p.httpGet) {
    p.httpGet = { ...p.httpGet, host: '127.0.0.1', port: port(p.httpGet.port), scheme: p.httpGet.scheme || 'HTTP' };
  } else if (p.tcpSocket) {
    p.tcpSocket = { ...p.tcpSocket, host: '127.0.0.1', port: port(p.tcpSocket.port) };
  } else if (p.exec) {
    // the exec probe stays on the user container; queue-proxy checks the port
    p.tcpSocket = { host: '127.0.0.1', port: userPort };
    delete p.exec;
  } else if (p.grpc) {
    p.grpc = { ...p.grpc, port: p.grpc.port || userPort };
  }
  if (p.periodSeconds && p.periodSeconds > 0 && (p.timeoutSeconds ?? 0) < 1) p.timeoutSeconds = 1;
  return p;
}

type RevisionSpec = NonNullable<NonNullable<NonNullable<KnativeService['spec']>['template']>['spec']>;

/** containerConcurrency and the timeouts, with config-defaults' values where the Service sets none. */
function revisionLimits(spec: RevisionSpec, containerConcurrency: number | undefined): Record<string, string> {
  return {
    CONTAINER_CONCURRENCY: String(containerConcurrency ?? spec.containerConcurrency ?? 0),
    REVISION_TIMEOUT_SECONDS: String(spec.timeoutSeconds || DEFAULT_REVISION_TIMEOUT_SECONDS),
    REVISION_RESPONSE_START_TIMEOUT_SECONDS: String(spec.responseStartTimeoutSeconds ?? 0),
    REVISION_IDLE_TIMEOUT_SECONDS: String(spec.idleTimeoutSeconds ?? 0),
  };
}

/** queue-proxy's environment for `service` at `place`. */
export function queueProxyEnv(service: KnativeService, place: QueueProxyPlace): Record<string, string> {
  const name = service.metadata?.name ?? 'function';
  const spec = service.spec?.template?.spec ?? {};
  const containers = spec.containers ?? [];
  if (containers.length !== 1)
    throw new Error(
      `the Knative Service ${name} has ${containers.length} containers; queue-proxy here fronts exactly one`,
    );
  const revision = `${name}-${REVISION_SUFFIX}`;
  return {
    SERVING_NAMESPACE: place.namespace,
    SERVING_SERVICE: name,
    SERVING_CONFIGURATION: name,
    SERVING_REVISION: revision,
    SERVING_POD: `${revision}-deployment-local`,
    SERVING_POD_IP: '127.0.0.1',
    QUEUE_SERVING_PORT: String(place.servingPort),
    QUEUE_SERVING_TLS_PORT: String(place.tlsPort),
    USER_PORT: String(place.userPort),
    ...revisionLimits(spec, place.containerConcurrency),
    SERVING_READINESS_PROBE: JSON.stringify(queueReadinessProbe(containers[0]!.readinessProbe, place.userPort)),
    SERVING_LOGGING_CONFIG: '',
    SERVING_LOGGING_LEVEL: 'info',
    ENABLE_HTTP2_AUTO_DETECTION: 'false',
    ENABLE_HTTP_FULL_DUPLEX: 'false',
    ENABLE_MULTI_CONTAINER_PROBES: 'false',
    // config-observability: request-metrics-protocol prometheus, request-metrics-endpoint host:port
    OBSERVABILITY_CONFIG: JSON.stringify({
      requestMetrics: { protocol: 'prometheus', endpoint: `${place.metricsHost}:${place.metricsPort}` },
    }),
  };
}
