// The fence of knative/ around module pods, on a test namespace: the
// ValidatingAdmissionPolicy and its binding of knative/module-policy.yaml
// (cluster-scoped, applied with kubectl as a user applies them), and the
// labels of knative/namespace.yaml that enforce Pod Security and put the
// namespace under the policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';
import { load, loadAll } from 'js-yaml';
import { kubectlPath } from '../../local/cluster/crds.ts';
import { repoRoot } from '../../local/cluster/paths.ts';
import { runCommand } from '../../local/cluster/run-command.ts';
import { restrictedContainer } from '../../local/node/real-modules.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { adminKubeConfig, adminKubeconfigPath, apiStatus, waitFor } from './kube.ts';

export const POLICY_FILE = join(repoRoot, 'knative', 'module-policy.yaml');
export const POLICY = 'cascade-module-fence';

type Labels = Record<string, string>;

/** A pod spec as a test changes it. */
export type PodSpec = Record<string, unknown> & { containers: Record<string, unknown>[] };

/** The labels knative/namespace.yaml gives the namespace. */
export function namespaceLabels(): Labels {
  const ns = load(readFileSync(join(repoRoot, 'knative', 'namespace.yaml'), 'utf8')) as {
    metadata: { labels: Labels };
  };
  return ns.metadata.labels;
}

/** The objects of knative/module-policy.yaml. */
export function policyObjects(): { kind: string; metadata: { name: string } }[] {
  return loadAll(readFileSync(POLICY_FILE, 'utf8')) as { kind: string; metadata: { name: string } }[];
}

const kubectl = (...args: string[]) => runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args]);

/**
 * Gives `namespace` the labels of knative/namespace.yaml, the Pod Security
 * level replaced by `level` when given (Pod Security's own label names).
 */
export async function fenceNamespace(namespace: string, level?: 'restricted' | 'baseline'): Promise<Labels> {
  const labels = { ...namespaceLabels() };
  if (level) labels['pod-security.kubernetes.io/enforce'] = level;
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const ns = await core.readNamespace({ name: namespace });
  ns.metadata!.labels = { ...ns.metadata!.labels, ...labels };
  await core.replaceNamespace({ name: namespace, body: ns });
  return labels;
}

/** A Job as Cascade makes one (its run label), its container restricted, with what `change` does to its pod spec; not created. */
export function moduleJob(name: string, change: (spec: PodSpec) => void = () => {}): V1Job {
  const container = { name: 'm', image: 'registry.example/m:1', securityContext: structuredClone(restrictedContainer) };
  const spec: PodSpec = { restartPolicy: 'Never', containers: [container] };
  change(spec);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, labels: { [LABEL_RUN]: 'some-run' } },
    spec: { template: { spec: spec as never } },
  };
}

/** 'accepted', or the API server's status code and message, for a server-side dry run of `job` in `namespace`. */
export async function dryRunJob(namespace: string, job: V1Job): Promise<string> {
  try {
    await adminKubeConfig().makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job, dryRun: 'All' });
    return 'accepted';
  } catch (error) {
    const status = apiStatus(error);
    if (status === undefined) throw error;
    const body = (error as { body?: unknown }).body;
    const message = typeof body === 'string' ? (JSON.parse(body) as { message: string }).message : String(error);
    return `${status} ${message}`;
  }
}

/**
 * Applies knative/module-policy.yaml and waits until the binding is in force
 * in `probe`, a fenced namespace: the policy refuses a hostPath module Job there.
 */
export async function applyModulePolicy(probe: string): Promise<void> {
  await kubectl('apply', '-f', POLICY_FILE);
  const hostPath = moduleJob('probe', (spec) => {
    spec.volumes = [{ name: 'root', hostPath: { path: '/' } }];
  });
  await waitFor(async () => (await dryRunJob(probe, hostPath)).includes(`ValidatingAdmissionPolicy '${POLICY}'`), {
    timeoutMs: 60_000,
    message: `ValidatingAdmissionPolicy ${POLICY} in force in ${probe}`,
  });
}

/** Deletes what knative/module-policy.yaml created. */
export async function removeModulePolicy(): Promise<void> {
  await kubectl('delete', '--ignore-not-found', '-f', POLICY_FILE);
}
