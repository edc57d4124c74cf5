// A PodMonitor as Prometheus sees it, without the Prometheus Operator: the
// relabelings the operator's API documents for a podMetricsEndpoints entry
// (running pods only, the selector's labels, the port by name or number, the
// namespace/container/pod/job labels, then the entry's own relabelings), and
// the targets Kubernetes pod discovery gives for a Knative pod (one per
// declared container port, with its __meta_kubernetes_* labels), written for
// file discovery: this Prometheus is built without Kubernetes discovery.
import { isIPv6 } from 'node:net';

interface Relabeling {
  sourceLabels?: string[];
  regex?: string;
  targetLabel?: string;
  replacement?: string;
  action?: string;
}
export interface PodMetricsEndpoint {
  port?: string;
  portNumber?: number;
  targetPort?: number;
  path?: string;
  relabelings?: Relabeling[];
}
export interface PodMonitor {
  metadata: { name: string };
  spec: { selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: PodMetricsEndpoint[] };
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

/** Prometheus's relabel_config for one of the endpoint's `relabelings`. */
const ownRelabeling = (r: Relabeling) => ({
  ...(r.sourceLabels ? { source_labels: r.sourceLabels } : {}),
  ...(r.regex ? { regex: r.regex } : {}),
  ...(r.targetLabel ? { target_label: r.targetLabel } : {}),
  ...(r.replacement ? { replacement: r.replacement } : {}),
  ...(r.action ? { action: r.action } : {}),
});

/** One scrape job per endpoint of the PodMonitor, its targets read from `file`. */
export function podMonitorScrapeConfigs(pm: PodMonitor, namespace: string, file: string): object[] {
  return pm.spec.podMetricsEndpoints.map((ep, i) => ({
    job_name: `podMonitor/${namespace}/${pm.metadata.name}/${i}`,
    metrics_path: ep.path ?? '/metrics',
    file_sd_configs: [{ files: [file] }],
    relabel_configs: [
      { action: 'drop', source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)' },
      ...Object.entries(pm.spec.selector.matchLabels).map(([k, v]) => ({
        action: 'keep',
        source_labels: [
          `__meta_kubernetes_pod_label_${sanitize(k)}`,
          `__meta_kubernetes_pod_labelpresent_${sanitize(k)}`,
        ],
        regex: `(${v});true`,
      })),
      ep.port
        ? { action: 'keep', source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: ep.port }
        : // portNumber, or the deprecated targetPort given as a number: both filter on the declared port's number
          {
            action: 'keep',
            source_labels: ['__meta_kubernetes_pod_container_port_number'],
            regex: String(ep.portNumber ?? ep.targetPort),
          },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { target_label: 'job', replacement: `${namespace}/${pm.metadata.name}` },
      ...(ep.port ? [{ target_label: 'endpoint', replacement: ep.port }] : []),
      ...(ep.relabelings ?? []).map(ownRelabeling),
    ],
  }));
}

/** The declared container ports of a Knative revision's pod: the function's, renamed user-port, and queue-proxy's. */
export const KNATIVE_POD_PORTS = [
  { container: 'user-container', name: 'user-port', port: 8080 },
  { container: 'queue-proxy', name: 'queue-port', port: 8012 },
  { container: 'queue-proxy', name: 'http-queueadm', port: 8022 },
  { container: 'queue-proxy', name: 'http-autometric', port: 9090 },
  { container: 'queue-proxy', name: 'http-usermetric', port: 9091 },
];

/** The target groups Kubernetes pod discovery gives for a pod: one per declared container port. */
export function podTargets(pod: { namespace: string; name: string; ip: string; labels: Record<string, string> }) {
  const host = isIPv6(pod.ip) ? `[${pod.ip}]` : pod.ip;
  return KNATIVE_POD_PORTS.map((p) => ({
    targets: [`${host}:${p.port}`],
    labels: {
      __meta_kubernetes_namespace: pod.namespace,
      __meta_kubernetes_pod_name: pod.name,
      __meta_kubernetes_pod_ip: pod.ip,
      __meta_kubernetes_pod_phase: 'Running',
      __meta_kubernetes_pod_container_name: p.container,
      __meta_kubernetes_pod_container_port_name: p.name,
      __meta_kubernetes_pod_container_port_number: String(p.port),
      __meta_kubernetes_pod_container_port_protocol: 'TCP',
      ...Object.fromEntries(
        Object.entries(pod.labels).flatMap(([k, v]) => [
          [`__meta_kubernetes_pod_label_${sanitize(k)}`, v],
          [`__meta_kubernetes_pod_labelpresent_${sanitize(k)}`, 'true'],
        ]),
      ),
    },
  }));
}
