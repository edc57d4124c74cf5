// Knative Serving's release manifests (its module's config/core, plus the six
// files that are symlinks upstream and come from the networking and caching
// modules) made ready for the local cluster, as objects. Pure: YAML text in,
// objects out. What changes, and only this:
//   - `ko://knative.dev/serving/cmd/<cmd>` becomes the image built here;
//   - each Deployment gets a patch: the real node's nodeSelector and
//     toleration, and imagePullPolicy IfNotPresent (no registry);
//   - the ConfigMaps get the settings an operator sets: the queue sidecar's
//     image, the registries whose tags are not resolved, the feature flags
//     that let a Service say where its pods run, the ingress class, and the
//     caller's autoscaler settings.
import { loadAll } from 'js-yaml';
import { onRealNode } from '../../node/real-modules.ts';
import { IMAGE_REGISTRY, SERVING_COMMANDS, servingImageReference } from './images.ts';

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
};

export const SERVING_NAMESPACE = 'knative-serving';

/** The files of serving's config/core that are symlinks upstream: where each comes from. */
export const SYMLINKED_FILES = {
  '300-imagecache.yaml': { module: 'caching', path: 'config/image.yaml' },
  '300-resources/certificate.yaml': { module: 'networking', path: 'config/certificate.yaml' },
  '300-resources/domain-claim.yaml': { module: 'networking', path: 'config/domain-claim.yaml' },
  '300-resources/ingress.yaml': { module: 'networking', path: 'config/ingress.yaml' },
  '300-resources/serverlessservice.yaml': { module: 'networking', path: 'config/serverlessservice.yaml' },
  'configmaps/network.yaml': { module: 'networking', path: 'config/config-network.yaml' },
} as const;

/** Every object of the YAML texts, in order; empty documents dropped. */
export function parseObjects(texts: string[]): KubeObject[] {
  return texts.flatMap((text) => loadAll(text).filter((doc): doc is KubeObject => !!doc && typeof doc === 'object'));
}

/** The text with every `ko://` reference to a Serving command replaced by the image built here. */
export function resolveKoImages(text: string): string {
  return text.replace(/ko:\/\/knative\.dev\/serving\/cmd\/([a-z-]+)/g, (ref: string, cmd: string) => {
    if (!(SERVING_COMMANDS as readonly string[]).includes(cmd)) throw new Error(`no image is built for ${ref}`);
    return servingImageReference(cmd as (typeof SERVING_COMMANDS)[number]);
  });
}

type PodSpec = {
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  containers: { imagePullPolicy?: string }[];
  initContainers?: { imagePullPolicy?: string }[];
};

/** A Deployment patched to run on the real node with images that are never pulled. */
export function placedOnRealNode(deployment: KubeObject): KubeObject {
  const spec = deployment.spec as { template: { spec: PodSpec } };
  const pod = spec.template.spec;
  const container = <T extends object>(c: T) => ({ ...c, imagePullPolicy: 'IfNotPresent' });
  return {
    ...deployment,
    spec: {
      ...spec,
      template: {
        ...spec.template,
        spec: {
          ...pod,
          nodeSelector: { ...pod.nodeSelector, ...onRealNode.nodeSelector },
          tolerations: [...(pod.tolerations ?? []), ...onRealNode.tolerations],
          containers: pod.containers.map(container),
          ...(pod.initContainers ? { initContainers: pod.initContainers.map(container) } : {}),
        },
      },
    },
  };
}

export const TRAEFIK_INGRESS_CLASS = 'traefik.ingress.networking.knative.dev';

export interface ServingSettings {
  /** config-autoscaler keys, such as a shorter stable-window for tests. */
  autoscaler?: Record<string, string>;
}

/** The settings each of Serving's ConfigMaps gets, by name. */
export function configSettings(settings: ServingSettings = {}): Record<string, Record<string, string>> {
  return {
    'config-deployment': {
      'queue-sidecar-image': servingImageReference('queue'),
      // Serving resolves a tag to a digest through the image's registry; these have none
      'registries-skipping-tag-resolving': `kind.local,ko.local,dev.local,${IMAGE_REGISTRY}`,
    },
    'config-network': { 'ingress-class': TRAEFIK_INGRESS_CLASS },
    'config-autoscaler': { ...settings.autoscaler },
  };
}

function withData(configMap: KubeObject, data: Record<string, string>): KubeObject {
  if (Object.keys(data).length === 0) return configMap;
  return { ...configMap, data: { ...(configMap.data as Record<string, string> | undefined), ...data } };
}

/** Serving's objects as installed here: Deployments patched, ConfigMaps set. */
export function servingObjects(texts: string[], settings: ServingSettings = {}): KubeObject[] {
  const config = configSettings(settings);
  return parseObjects(texts.map(resolveKoImages)).map((object) => {
    if (object.metadata.namespace !== SERVING_NAMESPACE) return object;
    if (object.kind === 'Deployment') return placedOnRealNode(object);
    if (object.kind === 'ConfigMap') return withData(object, config[object.metadata.name] ?? {});
    return object;
  });
}

const FIRST_KINDS = new Set(['CustomResourceDefinition', 'Namespace']);
const LAST_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/**
 * The objects in three applies: CRDs and namespaces (then wait until
 * Established), the rest, then the webhook configurations, which refuse
 * what they see until the webhook serves.
 */
export function applyPhases(objects: KubeObject[]): KubeObject[][] {
  return [
    objects.filter((o) => FIRST_KINDS.has(o.kind)),
    objects.filter((o) => !FIRST_KINDS.has(o.kind) && !LAST_KINDS.has(o.kind)),
    objects.filter((o) => LAST_KINDS.has(o.kind)),
  ];
}
