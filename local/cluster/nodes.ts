// The kwok-managed fake nodes and the readiness checks of a fresh cluster.
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { apiClient } from '../kube.ts';
import { kwokNodeAnnotation } from './component-commands.ts';
import { pollUntil } from './poll.ts';

export const nodeNames = ['kwok-node-0', 'kwok-node-1'];

/** The annotation that sets how many pods a fake node has room for (stages/node-ready.yaml; 500 without it). */
export const KWOK_PODS = 'cascade.cascade.net/kwok-pods';

/** A fake node kwok manages, with `labels` added and room for `pods` pods when given. */
export function nodeManifest(name: string, extra: { labels?: Record<string, string>; pods?: number } = {}): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: {
        [kwokNodeAnnotation.key]: kwokNodeAnnotation.value,
        'node.alpha.kubernetes.io/ttl': '0',
        ...(extra.pods === undefined ? {} : { [KWOK_PODS]: String(extra.pods) }),
      },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
        ...extra.labels,
      },
    },
    spec: {},
  };
}

export function adminCoreApi(kubeconfigFile: string): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigFile);
  return apiClient(kc, CoreV1Api);
}

export async function createNodes(core: CoreV1Api): Promise<void> {
  for (const name of nodeNames) {
    try {
      await core.createNode({ body: nodeManifest(name) });
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
  }
}

const isReady = (node: V1Node) =>
  node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function waitNodesReady(
  core: CoreV1Api,
  options: { timeoutMs: number; abort?: () => void | Promise<void> },
): Promise<void> {
  await pollUntil(
    async () => {
      const { items } = await core.listNode();
      const ready = items.filter((n) => nodeNames.includes(n.metadata?.name ?? '') && isReady(n));
      return ready.length === nodeNames.length;
    },
    { ...options, what: `nodes ${nodeNames.join(', ')} Ready` },
  );
}

export async function waitDefaultServiceAccount(
  core: CoreV1Api,
  options: { timeoutMs: number; abort?: () => void | Promise<void> },
): Promise<void> {
  await pollUntil(
    async () => Boolean(await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' })),
    { ...options, what: 'ServiceAccount default/default' },
  );
}
