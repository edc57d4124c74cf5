// Command lines of the control-plane components.
import { join } from 'node:path';
import type { Pki } from './certs.ts';
import { auditPolicyFile, egressSelectorFile } from './paths.ts';

export interface Ports {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
  kwok: number;
}

export interface CommandContext {
  binDir: string;
  pki: Pki;
  ports: Ports;
  etcdDataDir: string;
  /** Where the kube-apiserver writes its audit log. */
  auditLog: string;
  kubeconfigs: { controllerManager: string; scheduler: string; kwok: string };
  stageFiles: string[];
  /** Raised API limits (the bench's); unset: each component's own defaults. */
  limits?: ApiLimits | undefined;
}

/**
 * API rate limits of the control plane, as production clusters raise them.
 * Unset fields keep the component's default: kube-controller-manager 20 QPS /
 * 30 burst and 5 concurrent Job syncs, kube-scheduler 50 QPS / 100 burst,
 * kube-apiserver 400 requests in flight / 200 mutating.
 */
export interface ApiLimits {
  /** kube-controller-manager's and kube-scheduler's client-side rate limit (`--kube-api-qps`). */
  kubeApiQps?: number;
  /** Their burst (`--kube-api-burst`). */
  kubeApiBurst?: number;
  /** Job controller workers (`--concurrent-job-syncs`). */
  concurrentJobSyncs?: number;
  /** kube-apiserver `--max-requests-inflight`. */
  maxRequestsInflight?: number;
  /** kube-apiserver `--max-mutating-requests-inflight`. */
  maxMutatingRequestsInflight?: number;
}

/**
 * What the bench starts its control plane with (and `CASCADE_CLUSTER_LIMITS=raised
 * npm run cluster:up`): the Job controller and the scheduler are not held
 * to client-go's 20-50 requests a second, as on a production cluster.
 */
export const RAISED_LIMITS: ApiLimits = { kubeApiQps: 1000, kubeApiBurst: 2000, concurrentJobSyncs: 50 };

function flags(pairs: Record<string, number | undefined>): string[] {
  return Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([flag, v]) => `--${flag}=${v}`);
}

/** Rate limit flags of a client component (controller manager, scheduler). */
function clientLimitArgs(limits: ApiLimits | undefined): string[] {
  return flags({ 'kube-api-qps': limits?.kubeApiQps, 'kube-api-burst': limits?.kubeApiBurst });
}

export interface Command {
  bin: string;
  args: string[];
}

export const serviceClusterIpRange = '10.96.0.0/16';
export const kubernetesServiceIp = '10.96.0.1';
export const kwokNodeAnnotation = { key: 'kwok.x-k8s.io/node', value: 'fake' } as const;

/** Controllers kube-controller-manager runs (the ones Cascade relies on). */
export const controllers = [
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'garbage-collector-controller',
  'serviceaccount-controller',
  'namespace-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'replicaset-controller',
  'deployment-controller',
  // the Services of a real node's pods (Knative's among them) get their endpoints
  'endpoints-controller',
  'endpointslice-controller',
  // Knative's ServerlessServices write the Endpoints of Services with no
  // selector (the activator's address); kube-proxy reads EndpointSlices only
  'endpointslice-mirroring-controller',
  // Knative Eventing's request-reply is a StatefulSet
  'statefulset-controller',
];

export function etcdCommand(c: CommandContext): Command {
  const client = `http://127.0.0.1:${c.ports.etcdClient}`;
  const peer = `http://127.0.0.1:${c.ports.etcdPeer}`;
  return {
    bin: join(c.binDir, 'etcd'),
    args: [
      '--name=cascade',
      `--data-dir=${c.etcdDataDir}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=cascade=${peer}`,
      '--initial-cluster-state=new',
      // a throw-away test cluster: durability is not worth the fsync latency
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
  };
}

export function apiserverCommand(c: CommandContext): Command {
  const { pki } = c;
  return {
    bin: join(c.binDir, 'kube-apiserver'),
    args: [
      `--etcd-servers=http://127.0.0.1:${c.ports.etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${c.ports.apiserver}`,
      `--tls-cert-file=${pki.serverCert}`,
      `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      // lets the other components verify requests by client certificate
      `--requestheader-client-ca-file=${pki.caCert}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--authorization-mode=RBAC',
      // a real node's kubelet (local/node/) serves pod logs to this identity, at the node's address
      `--kubelet-client-certificate=${pki.client('apiserver-kubelet-client').cert}`,
      `--kubelet-client-key=${pki.client('apiserver-kubelet-client').key}`,
      '--kubelet-preferred-address-types=InternalIP',
      // PodNodeSelector and PodTolerationRestriction: a namespace's annotations may send its pods to the real node,
      // those of controllers that give no way to set a pod's placement (Knative's ApiServerSource adapter)
      '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,LimitRanger,DefaultTolerationSeconds,ResourceQuota,PodNodeSelector,PodTolerationRestriction,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy',
      // fake nodes have no node-lifecycle controller to lift the not-ready taint
      '--disable-admission-plugins=TaintNodesByCondition',
      // as on clusters that run privileged system pods (kubeadm's default): a module's privileged
      // container meets Pod Security and knative/module-policy.yaml, not the API server's validation
      '--allow-privileged=true',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      `--service-cluster-ip-range=${serviceClusterIpRange}`,
      // 127.0.0.1 is not a valid endpoint for the `kubernetes` Service
      '--endpoint-reconciler-type=none',
      // webhooks and aggregated APIs are called at their pods' addresses, through the real node's door
      '--enable-aggregator-routing=true',
      `--egress-selector-config-file=${egressSelectorFile}`,
      // every request as one Metadata line, written asynchronously: each client's requests can be counted
      `--audit-policy-file=${auditPolicyFile}`,
      `--audit-log-path=${c.auditLog}`,
      '--audit-log-mode=batch',
      '--audit-log-maxsize=200',
      '--audit-log-maxbackup=1',
      '--profiling=false',
      '--v=1',
      ...flags({
        'max-requests-inflight': c.limits?.maxRequestsInflight,
        'max-mutating-requests-inflight': c.limits?.maxMutatingRequestsInflight,
      }),
    ],
  };
}

function componentAuthArgs(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--leader-elect=false',
    '--profiling=false',
    '--v=1',
  ];
}

export function controllerManagerCommand(c: CommandContext): Command {
  return {
    bin: join(c.binDir, 'kube-controller-manager'),
    args: [
      ...componentAuthArgs(c.kubeconfigs.controllerManager, c.ports.controllerManager),
      `--controllers=${controllers.join(',')}`,
      // each controller acts as its own kube-system ServiceAccount (bootstrap RBAC)
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${c.pki.saKey}`,
      `--root-ca-file=${c.pki.caCert}`,
      `--service-cluster-ip-range=${serviceClusterIpRange}`,
      ...clientLimitArgs(c.limits),
      ...flags({ 'concurrent-job-syncs': c.limits?.concurrentJobSyncs }),
    ],
  };
}

export function schedulerCommand(c: CommandContext): Command {
  return {
    bin: join(c.binDir, 'kube-scheduler'),
    args: [...componentAuthArgs(c.kubeconfigs.scheduler, c.ports.scheduler), ...clientLimitArgs(c.limits)],
  };
}

export function kwokCommand(c: CommandContext): Command {
  return {
    bin: join(c.binDir, 'kwok'),
    args: [
      `--kubeconfig=${c.kubeconfigs.kwok}`,
      ...c.stageFiles.map((file) => `--config=${file}`),
      `--manage-nodes-with-annotation-selector=${kwokNodeAnnotation.key}=${kwokNodeAnnotation.value}`,
      '--manage-all-nodes=false',
      '--node-lease-duration-seconds=40',
      '--cidr=10.244.0.0/16',
      // the API server asks a node's InternalIP for pod logs: kwok's nodes say
      // 127.0.0.1, where no kubelet listens, so such a request stays on this machine
      '--node-ip=127.0.0.1',
      `--server-address=127.0.0.1:${c.ports.kwok}`,
    ],
  };
}
