// The function from its image (local/node/images.ts) as a real pod on the
// real node: a Deployment whose pod spec is knative/service.yaml's (its
// ServiceAccount, container security context, probes, volumes, and
// timeoutSeconds as the grace period, as Knative makes it), in a namespace
// that enforces the `restricted` Pod Security Standard. Shaped as a
// FunctionProcess, so the Cascade harness can run it in place of a process:
// its child is `kubectl logs -f` of the pod, its URLs 127.0.0.1 ports piped
// through the real node's door to the pod.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type V1Container, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { repoRoot } from '../../local/cluster/paths.ts';
import type { FunctionProcess } from '../../local/stand-ins/function-process.ts';
import { forwardThroughDoor } from '../../local/node/door.ts';
import { FUNCTION_IMAGE } from '../../local/node/images.ts';
import { REAL_NODE } from '../../local/node/node-config.ts';
import { onRealNode } from '../../local/node/real-modules.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';

export const PSA_RESTRICTED = {
  'pod-security.kubernetes.io/enforce': 'restricted',
  'pod-security.kubernetes.io/enforce-version': 'latest',
};

interface KnativeService {
  spec: { template: { spec: V1PodSpec & { timeoutSeconds: number; containerConcurrency?: number } } };
}

/** knative/service.yaml's pod spec as a Deployment's: the image given, probes on the container port, the real node. */
export function functionPodSpec(env: Record<string, string>): V1PodSpec {
  const service = load(readFileSync(join(repoRoot, 'knative/service.yaml'), 'utf8')) as KnativeService;
  const { timeoutSeconds, ...spec } = service.spec.template.spec;
  delete spec.containerConcurrency;
  const [container] = spec.containers as [V1Container];
  const port = container.ports![0]!.containerPort;
  const probe = (path: string) => ({ httpGet: { path, port }, periodSeconds: 2 });
  const merged = { ...Object.fromEntries(container.env!.map((e) => [e.name, e.value ?? ''])), ...env };
  return {
    ...spec,
    ...onRealNode,
    terminationGracePeriodSeconds: timeoutSeconds,
    containers: [
      {
        ...container,
        image: FUNCTION_IMAGE,
        imagePullPolicy: 'Never',
        env: Object.entries(merged).map(([name, value]) => ({ name, value })),
        livenessProbe: probe(container.livenessProbe!.httpGet!.path!),
        readinessProbe: probe(container.readinessProbe!.httpGet!.path!),
      },
    ],
  };
}

const isReady = (pod: V1Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** Starts the function's Deployment in env.POD_NAMESPACE (labelled restricted first) and waits for its pod to be Ready. */
export async function startFunctionPod(harnessEnv: Record<string, string>): Promise<FunctionProcess> {
  // in the pod the function finds the API server and its token as in any pod
  const env = { ...harnessEnv };
  delete env.KUBECONFIG;
  const namespace = env.POD_NAMESPACE!;
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const ns = await core.readNamespace({ name: namespace });
  ns.metadata!.labels = { ...ns.metadata!.labels, ...PSA_RESTRICTED };
  await core.replaceNamespace({ name: namespace, body: ns });
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: 'cascade-scenario-config' }, data: { 'config.json': '{}' } },
  });
  const labels = { app: 'cascade-function' };
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'cascade', labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: functionPodSpec(env) },
      },
    },
  });
  const pod = await waitFor(
    async () =>
      (await core.listNamespacedPod({ namespace, labelSelector: 'app=cascade-function' })).items.find(isReady),
    { timeoutMs: 120_000, message: 'the function pod Ready' },
  );
  return attach(namespace, pod);
}

async function attach(namespace: string, pod: V1Pod): Promise<FunctionProcess> {
  const name = pod.metadata!.name!;
  const [http, metrics] = await Promise.all(
    [8080, 9095].map((port) => forwardThroughDoor(REAL_NODE.door, pod.status!.podIP!, port)),
  );
  const child = spawn(kubectlPath(), ['--kubeconfig', adminKubeconfigPath(), '-n', namespace, 'logs', '-f', name]);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  let stopped: Promise<number | null> | undefined;
  const deleteAndWait = async () => {
    const apps = adminKubeConfig().makeApiClient(AppsV1Api);
    await apps.deleteNamespacedDeployment({ name: 'cascade', namespace, body: { propagationPolicy: 'Background' } });
    let exitCode: number | null = null;
    await waitFor(
      async () => {
        try {
          const now = await core.readNamespacedPod({ name, namespace });
          exitCode = now.status?.containerStatuses?.[0]?.state?.terminated?.exitCode ?? exitCode;
          return false;
        } catch (error) {
          if ((error as { code?: number }).code === 404) return true;
          throw error;
        }
      },
      { timeoutMs: 90_000, intervalMs: 100, message: `pod ${name} gone` },
    );
    child.kill();
    await Promise.all([http!.close(), metrics!.close()]);
    return exitCode;
  };
  return {
    url: `http://127.0.0.1:${http!.port}`,
    metricsUrl: `http://127.0.0.1:${metrics!.port}/metrics`,
    child,
    output: () => output,
    errorLines: () =>
      output.split('\n').filter((line) => {
        const level = /"level":(\d+)/.exec(line)?.[1];
        return level !== undefined && Number(level) >= 50;
      }),
    /**
     * Deletes the Deployment, and so its pod (the kubelet sends SIGTERM), and
     * resolves with the container's exit code once the pod is gone; a second
     * call gets the first one's answer.
     */
    stop: () => (stopped ??= deleteAndWait()),
  };
}
