// Knative Eventing's own YAMLs, as its release assembles them in
// hack/generate-yamls.sh: eventing-core.yaml from config/core/,
// mt-channel-broker.yaml from config/brokers/mt-channel-broker/,
// in-memory-channel.yaml from config/channels/in-memory-channel/. They are
// resolved as `ko resolve` resolves them, but to the images built here. They
// are patched as a kustomization would patch them for the real node.
// Knative's files are read, never edited. Pure: YAML text in, objects out.
import { loadAll } from 'js-yaml';
import { REAL_NODE } from '../../node/node-config.ts';
import { onRealNode } from '../../node/real-modules.ts';
import { imageReference, koCommand } from './components.ts';

/** The folders of the module's `config/` that the three release YAMLs are made of, in the release's order. */
export const RELEASE_FOLDERS = ['config/core', 'config/brokers/mt-channel-broker', 'config/channels/in-memory-channel'];

/**
 * The ConfigMaps the controller's env reads (eventing-integrations-images,
 * eventing-transformations-images): config/core/configmaps links them from
 * here, and a module's zip drops links.
 */
export const LINKED_FOLDERS = ['third_party/eventing-integrations-latest'];

export const EVENTING_NAMESPACE = 'knative-eventing';

export type Manifest = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
};

/** The objects of YAML texts, empty documents dropped. */
export function parseManifests(texts: string[]): Manifest[] {
  return texts.flatMap((text) =>
    loadAll(text).filter((doc): doc is Manifest => typeof doc === 'object' && doc !== null),
  );
}

/** `value` with every `ko://knative.dev/eventing/cmd/<cmd>` string made the image reference of <cmd>, as `ko resolve` does. */
export function resolveKo<T>(value: T, version?: string): T {
  if (typeof value === 'string') {
    const cmd = koCommand(value);
    return (cmd === undefined ? value : imageReference(cmd, version)) as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => resolveKo(v, version)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveKo(v, version)])) as T;
  }
  return value;
}

interface PodTemplate {
  spec?: {
    nodeSelector?: Record<string, string>;
    tolerations?: unknown[];
    containers?: { imagePullPolicy?: string }[];
    initContainers?: { imagePullPolicy?: string }[];
  };
}

/** The kinds whose pod template the patch places on the real node. */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet'];

/**
 * A Deployment (or StatefulSet) patched as a strategic-merge patch of a kustomization would
 * patch it: the real node's nodeSelector and toleration merged in, and
 * `imagePullPolicy: IfNotPresent` on each container (the images are imported,
 * no registry serves them).
 */
export function placeOnRealNode(workload: Manifest): Manifest {
  const spec = workload.spec as { template?: PodTemplate } | undefined;
  const template = spec?.template ?? {};
  const podSpec = template.spec ?? {};
  const pull = (c: { imagePullPolicy?: string }) => ({ ...c, imagePullPolicy: 'IfNotPresent' });
  return {
    ...workload,
    spec: {
      ...spec,
      template: {
        ...template,
        spec: {
          ...podSpec,
          nodeSelector: { ...podSpec.nodeSelector, ...onRealNode.nodeSelector },
          tolerations: [...(podSpec.tolerations ?? []), ...onRealNode.tolerations],
          containers: (podSpec.containers ?? []).map(pull),
          ...(podSpec.initContainers ? { initContainers: podSpec.initContainers.map(pull) } : {}),
        },
      },
    },
  };
}

/** How often a readiness probe is asked, from the container's start: no later than this after it is ready. */
export const PROMPT_READINESS = { initialDelaySeconds: 1, periodSeconds: 1 } as const;

type Probed = { readinessProbe?: Record<string, unknown> };

/**
 * A workload whose readiness probes are asked every second from the start.
 * The controllers' own ask first after 20 s, then every 10 s: they show
 * Ready up to 10 s after they are, and the install waits for that. Their
 * liveness probes stay as they are.
 */
export function promptReadiness(workload: Manifest): Manifest {
  const spec = workload.spec as { template?: { spec?: { containers?: Probed[] } } } | undefined;
  const containers = spec?.template?.spec?.containers;
  if (!containers?.some((c) => c.readinessProbe)) return workload;
  const prompt = (c: Probed) =>
    c.readinessProbe ? { ...c, readinessProbe: { ...c.readinessProbe, ...PROMPT_READINESS } } : c;
  return {
    ...workload,
    spec: {
      ...spec,
      template: { ...spec!.template, spec: { ...spec!.template!.spec, containers: containers.map(prompt) } },
    },
  };
}

/** The Broker ingress's fixed ClusterIP, behind the node's 127.0.0.1 port for it (node-config.ts). */
export const BROKER_INGRESS_IP = REAL_NODE.brokerIngress.clusterIp;

/** The broker-ingress Service with its fixed ClusterIP; any other object as it is. */
export function withFixedIngressAddress(doc: Manifest): Manifest {
  if (doc.kind !== 'Service' || doc.metadata?.name !== 'broker-ingress') return doc;
  return { ...doc, spec: { ...(doc.spec as object), clusterIP: BROKER_INGRESS_IP } };
}

/** Namespace first, then CRDs, then the rest in the release's order: one `kubectl apply` can take them. */
function applyOrder(m: Manifest): number {
  if (m.kind === 'Namespace') return 0;
  if (m.kind === 'CustomResourceDefinition') return 1;
  return 2;
}

/** The objects to apply: the release's, resolved to the images built here, each workload placed on the real node and probed promptly, the ingress at its fixed address. */
export function eventingManifests(docs: Manifest[], version?: string): Manifest[] {
  return docs
    .map((doc) => resolveKo(doc, version))
    .map((doc) => (WORKLOAD_KINDS.includes(doc.kind ?? '') ? promptReadiness(placeOnRealNode(doc)) : doc))
    .map(withFixedIngressAddress)
    .map((doc, index) => ({ doc, index }))
    .sort((a, b) => applyOrder(a.doc) - applyOrder(b.doc) || a.index - b.index)
    .map(({ doc }) => doc);
}

export interface Workload {
  kind: string;
  namespace: string;
  name: string;
}

/** The Deployments and StatefulSets among them: each must become ready. */
export function workloadsOf(manifests: Manifest[]): Workload[] {
  return manifests
    .filter((m) => WORKLOAD_KINDS.includes(m.kind ?? ''))
    .map((m) => ({
      kind: m.kind!,
      namespace: m.metadata?.namespace ?? EVENTING_NAMESPACE,
      name: m.metadata?.name ?? '',
    }));
}
