// Real Knative Eventing (local/knative/eventing/) on the real node, for the
// test files that ask for it: installed once in the file's beforeAll, after
// the node joined; removed in its afterAll when the file started the node
// itself (a node that `cluster:up` started keeps it). Plus what those tests
// make in their namespace: plain Deployments and Services on the real node,
// CloudEvents posted to a Broker's ingress, and pods' logs.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Container } from '@kubernetes/client-node';
import { load as parseYaml } from 'js-yaml';
import { afterAll, beforeAll } from 'vitest';
import { repoRoot } from '../../local/cluster/paths.ts';
import { apiClient, apiStatus } from '../../local/kube.ts';
import { installEventing, uninstallEventing } from '../../local/knative/eventing/install.ts';
import { postEvent as postOutgoing, type OutgoingEvent } from '../../local/knative/broker-ingress.ts';
import { realNodeRunning } from '../../local/node/node.ts';
import { onRealNode, restrictedContainer } from '../../local/node/real-modules.ts';
import { REAL_NODE_HOOK_TIMEOUT, useRealNode } from './real-node.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';

/** Joins the real node, then installs Knative Eventing on it, for this file. */
export function useKnativeEventing(): void {
  let nodeWasRunning = false;
  beforeAll(() => {
    nodeWasRunning = realNodeRunning(dirname(adminKubeconfigPath()));
  });
  useRealNode();
  beforeAll(async () => {
    const log = (message: string) => process.stderr.write(`${message}\n`);
    await installEventing({ kubeconfig: adminKubeconfigPath(), log });
  }, REAL_NODE_HOOK_TIMEOUT);
  // hooks run in reverse at the end: this one before the node goes
  afterAll(async () => {
    if (!nodeWasRunning) await uninstallEventing(adminKubeconfigPath());
  }, 180_000);
}

/** A Cascade manifest of knative/, parsed. */
export function cascadeManifest<T = Record<string, unknown>>(name: string): T {
  return parseYaml(readFileSync(join(repoRoot, 'knative', name), 'utf8')) as T;
}

/** A Deployment of one container and its Service (port 80 to the container's 8080), on the real node. */
export async function deployOnRealNode(namespace: string, name: string, container: V1Container): Promise<void> {
  const kc = adminKubeConfig();
  const labels = { app: name };
  await apiClient(kc, AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            ...onRealNode,
            // busybox's httpd, as pid 1, ignores SIGTERM: the namespace's deletion would wait 30 s for it
            terminationGracePeriodSeconds: 1,
            // what Pod Security `restricted` asks, which knative/'s namespace enforces
            containers: [{ imagePullPolicy: 'IfNotPresent', securityContext: restrictedContainer, ...container, name }],
          },
        },
      },
    },
  });
  await apiClient(kc, CoreV1Api).createNamespacedService({
    namespace,
    body: { metadata: { name, labels }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
  });
}

/** Waits until the Deployments are Available. */
export async function waitDeploymentsAvailable(namespace: string, names: string[]): Promise<void> {
  const apps = apiClient(adminKubeConfig(), AppsV1Api);
  for (const name of names) {
    await waitFor(
      async () => {
        const d = await apps.readNamespacedDeployment({ namespace, name });
        return d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
      },
      { timeoutMs: 120_000, intervalMs: 500, message: `Deployment ${namespace}/${name} Available` },
    );
  }
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface KnativeObject {
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[]; address?: { url?: string }; annotations?: Record<string, string> };
}

/** Reads a Knative object (group, version, plural) in `namespace`. */
export async function readKnative(
  namespace: string,
  group: string,
  version: string,
  plural: string,
  name: string,
): Promise<KnativeObject> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  return (await custom.getNamespacedCustomObject({ group, version, namespace, plural, name })) as KnativeObject;
}

/** Waits until the object's Ready condition is True; a timeout names its conditions. */
export async function waitKnativeReady(
  namespace: string,
  group: string,
  version: string,
  plural: string,
  name: string,
  timeoutMs = 120_000,
): Promise<KnativeObject> {
  let last: KnativeObject | undefined;
  try {
    return await waitFor(
      async () => {
        last = await readKnative(namespace, group, version, plural, name);
        return last.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && last;
      },
      { timeoutMs, intervalMs: 500, message: `${plural} ${namespace}/${name} Ready` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; conditions: ${JSON.stringify(last?.status?.conditions ?? [])}`);
  }
}

export { brokerIngressUrl } from '../../local/knative/broker-ingress.ts';

/** A CloudEvent posted to `url` from this test host; its HTTP status. */
export function postEvent(url: string, event: Omit<OutgoingEvent, 'source'>): Promise<number> {
  return postOutgoing(url, { ...event, source: 'cascade.test/knative-eventing' });
}

/** The log of the Deployment's pods (label app=<name>), joined. */
export async function deploymentLog(namespace: string, name: string): Promise<string> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace, labelSelector: `app=${name}` });
  const logs = await Promise.all(
    pods.items.map((pod) => core.readNamespacedPodLog({ namespace, name: pod.metadata!.name! }).catch(() => '')),
  );
  return logs.join('\n');
}

/** The events event_display printed, each as its attributes and extensions by name. */
export function displayedEvents(log: string): Record<string, string>[] {
  return log
    .split('☁️  cloudevents.Event')
    .slice(1)
    .map((block) => {
      const fields: Record<string, string> = {};
      const head = block.split(/\nData,/)[0] ?? '';
      for (const m of head.matchAll(/^ {2}([a-z0-9]+): (.*)$/gm)) fields[m[1]!] = m[2]!;
      return fields;
    });
}

/** Deletes the test's namespace and waits until it is gone, while Knative's controllers still run to finish its objects. */
export async function deleteNamespaceGone(namespace: string): Promise<void> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  await core.deleteNamespace({ name: namespace });
  await waitFor(
    () =>
      core.readNamespace({ name: namespace }).then(
        () => false,
        (error: unknown) => apiStatus(error) === 404,
      ),
    { timeoutMs: 120_000, intervalMs: 1000, message: `namespace ${namespace} gone` },
  );
}
