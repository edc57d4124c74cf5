// Cascade's Knative Service on real Knative Serving. It is applied as
// `kubectl apply -k knative/` applies it, from an overlay that changes only
// what a user changes (namespace, image). The namespace's annotations put its
// pods on the real node. It is reached at its cluster-local address as a pod
// reaches it. The cluster's DNS (CoreDNS on the real node's bridge) resolves
// the name. The request goes to the address it gives, with the name as Host,
// over the host's route to the Service range.
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dump, loadAll } from 'js-yaml';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { kubectlPath } from '../../cluster/crds.ts';
import { repoRoot } from '../../cluster/paths.ts';
import { runCommand } from '../../cluster/run-command.ts';
import { apiClient, kubeConfigFromFile, waitFor } from '../../kube.ts';
import { dialThroughDoor } from '../../node/door.ts';
import { REAL_NODE } from '../../node/node-config.ts';
import { FUNCTION_IMAGE, MODULE_IMAGE } from '../../node/images.ts';
import { onRealNode, restrictedContainer } from '../../node/real-modules.ts';
import { tempDir } from '../../temp-dir.ts';
import { realNodeNamespaceAnnotations } from '../cascade-deploy.ts';

/**
 * The kinds the Service needs; the rest of knative/ (Broker, Triggers, sources,
 * bindings, janitor, the dead-letter sink) belongs with Eventing.
 */
const SERVICE_KINDS = new Set(['CustomResourceDefinition', 'ServiceAccount', 'Role', 'RoleBinding', 'ConfigMap']);

/**
 * The overlay: knative/ in `namespace` and the image built here. The pods
 * reach the real node through the namespace's annotations
 * (applyCascadeService), not through the Service's pod template.
 */
export function overlay(dir: string, namespace: string): string {
  const [name, tag] = FUNCTION_IMAGE.split(':');
  return dump({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace,
    // kustomize takes a base's path relative to the overlay only
    resources: [relative(dir, join(repoRoot, 'knative'))],
    images: [{ name: 'ghcr.io/cascade/cascade', newName: name, newTag: tag }],
  });
}

/**
 * Annotates `namespace` so that every pod of it runs on the real node, then
 * applies the Service, its RBAC, ConfigMap and CRDs from the overlay into it.
 */
export async function applyCascadeService(kubeconfigPath: string, namespace: string): Promise<void> {
  const core = apiClient(kubeConfigFromFile(kubeconfigPath), CoreV1Api);
  await core.patchNamespace(
    { name: namespace, body: { metadata: { annotations: realNodeNamespaceAnnotations() } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const dir = tempDir('cascade-knative-overlay-');
  writeFileSync(join(dir, 'kustomization.yaml'), overlay(dir, namespace));
  const kubeconfig = `--kubeconfig=${kubeconfigPath}`;
  const built = await runCommand(kubectlPath(), [kubeconfig, 'kustomize', dir]);
  const objects = (loadAll(built) as { apiVersion: string; kind: string; metadata: { name: string } }[]).filter(
    (o) => SERVICE_KINDS.has(o.kind) || (o.kind === 'Service' && o.metadata.name === 'cascade'),
  );
  const file = join(dir, 'service.yaml');
  writeFileSync(file, objects.map((o) => dump(o)).join('---\n'));
  await runCommand(kubectlPath(), [kubeconfig, 'apply', '--server-side', '-f', file]);
}

/** Deletes the Service and waits until it is gone, while Serving's controller still runs to drop its Route's finalizer. */
export async function deleteCascadeService(kubeconfigPath: string, namespace: string): Promise<void> {
  await runCommand(kubectlPath(), [
    `--kubeconfig=${kubeconfigPath}`,
    'delete',
    '--ignore-not-found',
    '--timeout=120s',
    '-n',
    namespace,
    'services.serving.knative.dev/cascade',
  ]);
}

type Condition = { type: string; status: string; reason?: string; message?: string };
export type KnativeObject = {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[]; url?: string; address?: { url?: string }; [key: string]: unknown };
};

export function condition(object: KnativeObject | undefined, type: string): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

/** One Knative object by group, version, plural and name. */
export async function getKnative(
  kubeconfigPath: string,
  ref: { group: string; plural: string; namespace: string; name: string },
): Promise<KnativeObject> {
  const { group, plural, namespace, name } = ref;
  const api = apiClient(kubeConfigFromFile(kubeconfigPath), CustomObjectsApi);
  return (await api.getNamespacedCustomObject({
    group,
    version: group === 'serving.knative.dev' ? 'v1' : 'v1alpha1',
    namespace,
    plural,
    name,
  })) as KnativeObject;
}

/** The pods of the Knative Service `service`, terminating ones included. */
export async function servicePods(kubeconfigPath: string, namespace: string, service: string) {
  const core = apiClient(kubeConfigFromFile(kubeconfigPath), CoreV1Api);
  return (await core.listNamespacedPod({ namespace, labelSelector: `serving.knative.dev/service=${service}` })).items;
}

/**
 * Debian's static busybox cannot resolve names itself (its wget crashes in
 * glibc's static resolver, and with -T): nslookup asks the cluster's DNS, and
 * wget sends the request to the last address it gave, the name as Host.
 */
const WGET = [
  'ip=$(/bin/busybox nslookup "$0" | /bin/busybox awk \'/^Address: /{a=$2} END{print a}\')',
  'exec /bin/busybox wget -q -O - --header "Host: $0" "http://$ip$1"',
].join('; ');

/**
 * GET `path` of `url` (a cluster-local URL) from a pod on the real node, with
 * busybox in the module image: resolves to what it printed, the body, or
 * fails with the pod's log.
 */
export async function getFromPod(
  kubeconfigPath: string,
  namespace: string,
  url: string,
  path: string,
): Promise<string> {
  const core = apiClient(kubeConfigFromFile(kubeconfigPath), CoreV1Api);
  const name = `wget-${Date.now().toString(36)}`;
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name },
      spec: {
        ...onRealNode,
        restartPolicy: 'Never',
        containers: [
          {
            name: 'wget',
            image: MODULE_IMAGE,
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/busybox', 'sh', '-c', WGET, new URL(url).hostname, path],
            securityContext: restrictedContainer,
          },
        ],
      },
    },
  });
  try {
    let phase: string | undefined;
    await waitFor(
      async () => {
        phase = (await core.readNamespacedPod({ namespace, name })).status?.phase;
        return phase === 'Succeeded' || phase === 'Failed';
      },
      { timeoutMs: 120_000, intervalMs: 500, message: `pod ${name} ended` },
    );
    const log = await core.readNamespacedPodLog({ namespace, name });
    if (phase !== 'Succeeded') throw new Error(`GET ${url}${path} from a pod failed: ${log}`);
    return log;
  } finally {
    await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 });
  }
}

/**
 * GET `path` of `url` (a cluster-local URL) as a pod sends it, from the host:
 * through the real node's door, which resolves the name with the cluster's DNS.
 */
export async function getInCluster(url: string, path: string): Promise<{ status: number; body: string }> {
  const host = new URL(url).hostname;
  const socket = await dialThroughDoor(REAL_NODE.door, host, 80);
  return new Promise((resolve, reject) => {
    const req = request({ createConnection: () => socket, path, headers: { host }, timeout: 120_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}${path}: no answer in 120 s`)));
    req.on('error', reject);
    req.end();
  });
}
