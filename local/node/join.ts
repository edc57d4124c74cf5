// What the cluster needs for the real node (node.ts): RBAC for its kubelet,
// the `kubernetes` Service's endpoint for its pods, and, when it goes, the
// Node object gone too (no node lifecycle controller runs here to mark it
// NotReady).
import { CoreV1Api, DiscoveryV1Api, KubeConfig, RbacAuthorizationV1Api, type V1Node } from '@kubernetes/client-node';
import { pollUntil } from '../cluster/poll.ts';
import { apiClient } from '../kube.ts';
import type { Component } from '../cluster/processes.ts';
import { assertRunning } from './node-processes.ts';
import { REAL_NODE } from './node-config.ts';

function client(kubeconfig: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return kc;
}

const isConflict = (error: unknown) => (error as { code?: number }).code === 409;

/**
 * Binds the system:node ClusterRole to the group system:nodes, as the Node
 * authorizer would, and lets CoreDNS read what it serves. Makes the node's address (where a door
 * forwards to the API server, node.ts) the `kubernetes` Service's
 * endpoint: the endpoint reconciler is off here, since the API server's own
 * address is 127.0.0.1, which a pod cannot reach.
 */
export async function joinCluster(kubeconfig: string, apiPort: number): Promise<void> {
  const kc = client(kubeconfig);
  const rbac = apiClient(kc, RbacAuthorizationV1Api);
  await rbac
    .createClusterRoleBinding({
      body: {
        metadata: { name: 'cascade:real-node' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
      },
    })
    .catch((error: unknown) => {
      if (!isConflict(error)) throw error;
    });
  await grantDnsReads(rbac);
  const discovery = apiClient(kc, DiscoveryV1Api);
  const body = {
    metadata: {
      name: 'kubernetes',
      labels: { 'kubernetes.io/service-name': 'kubernetes', 'endpointslice.kubernetes.io/managed-by': 'cascade.local' },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [REAL_NODE.address], conditions: { ready: true } }],
    ports: [{ name: 'https', port: apiPort, protocol: 'TCP' }],
  };
  await discovery.deleteNamespacedEndpointSlice({ name: 'kubernetes', namespace: 'default' }).catch(() => {});
  await discovery.createNamespacedEndpointSlice({ namespace: 'default', body });
}

/** What CoreDNS's kubernetes plugin reads, as the system:coredns ClusterRole of a kubeadm cluster. */
async function grantDnsReads(rbac: RbacAuthorizationV1Api): Promise<void> {
  const name = 'cascade:coredns';
  const read = ['list', 'watch'];
  const ignoreConflict = (error: unknown) => {
    if (!isConflict(error)) throw error;
  };
  await rbac
    .createClusterRole({
      body: {
        metadata: { name },
        rules: [
          { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: read },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
        ],
      },
    })
    .catch(ignoreConflict);
  await rbac
    .createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: REAL_NODE.dnsUser }],
      },
    })
    .catch(ignoreConflict);
}

const isReady = (node: V1Node) =>
  node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function waitNodeReady(kubeconfig: string, components: Component[]): Promise<void> {
  const core = apiClient(client(kubeconfig), CoreV1Api);
  await pollUntil(async () => isReady(await core.readNode({ name: REAL_NODE.name })), {
    timeoutMs: 120_000,
    intervalMs: 500,
    what: `node ${REAL_NODE.name} Ready`,
    abort: () => assertRunning(components),
  });
}

/** Deletes the Node object and the `kubernetes` endpoint that pointed at the node. */
export async function leaveCluster(kubeconfig: string): Promise<void> {
  const kc = client(kubeconfig);
  await apiClient(kc, CoreV1Api)
    .deleteNode({ name: REAL_NODE.name })
    .catch(() => {});
  await apiClient(kc, DiscoveryV1Api)
    .deleteNamespacedEndpointSlice({ name: 'kubernetes', namespace: 'default' })
    .catch(() => {});
}
