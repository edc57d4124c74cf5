// Installs Knative Eventing on a local cluster whose real node runs
// (local/node/). Its binaries are built by build.sh, cached. Their images are
// written and imported into the node's containerd. Then the release's own
// YAMLs (manifests.ts) are applied with the bundled kubectl, until every
// Deployment is Available.
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppsV1Api, AdmissionregistrationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { dump } from 'js-yaml';
import { runBuildScript } from '../../build-script.ts';
import { kubectlPath } from '../../cluster/crds.ts';
import { pollUntil } from '../../cluster/poll.ts';
import { runCommand } from '../../cluster/run-command.ts';
import { apiClient, apiStatus, kubeConfigFromFile } from '../../kube.ts';
import { cachedImageArchive, type CachedArchive } from '../../node/image-cache.ts';
import { importCachedIntoRealNode } from '../../node/node.ts';
import { tempDir } from '../../temp-dir.ts';
import { binaryName, EVENTING_COMMANDS, eventingSourceDir } from './components.ts';
import { eventingImage } from './images.ts';
import {
  EVENTING_NAMESPACE,
  eventingManifests,
  LINKED_FOLDERS,
  parseManifests,
  RELEASE_FOLDERS,
  workloadsOf,
  type Manifest,
  type Workload,
} from './manifests.ts';

export const eventingBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/** Runs build.sh (at once when the binaries are cached) and resolves to their directory. */
export function ensureEventingBinaries(): Promise<string> {
  return runBuildScript(eventingBuildScript, 'knative-eventing');
}

/** Each command's image archive, from the image cache (written there once). */
export async function ensureEventingImages(binDir: string): Promise<CachedArchive[]> {
  const archives: CachedArchive[] = [];
  for (const cmd of EVENTING_COMMANDS)
    archives.push(await cachedImageArchive(eventingImage(cmd, join(binDir, binaryName(cmd)))));
  return archives;
}

/** The YAML files of a folder and its subfolders, in the order `ko resolve -R` reads them. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(entry.name) ? [path] : [];
    });
}

/** The objects to apply, read from the module's `config/` (and the ConfigMaps it links). */
export async function readEventingManifests(sourceDir = eventingSourceDir()): Promise<Manifest[]> {
  const files = [...RELEASE_FOLDERS, ...LINKED_FOLDERS].flatMap((folder) => yamlFiles(join(sourceDir, folder)));
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return eventingManifests(parseManifests(texts));
}

/** Whether a Deployment is Available at its latest generation. */
async function deploymentReady(apps: AppsV1Api, at: { namespace: string; name: string }): Promise<boolean> {
  const read = await apps.readNamespacedDeployment(at);
  const current = (read.status?.observedGeneration ?? 0) >= (read.metadata?.generation ?? 1);
  return current && (read.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');
}

/** Whether a StatefulSet has all its replicas ready at its latest generation. */
async function statefulSetReady(apps: AppsV1Api, at: { namespace: string; name: string }): Promise<boolean> {
  const read = await apps.readNamespacedStatefulSet(at);
  const current = (read.status?.observedGeneration ?? 0) >= (read.metadata?.generation ?? 1);
  return current && (read.status?.readyReplicas ?? 0) >= (read.spec?.replicas ?? 1);
}

function workloadReady(apps: AppsV1Api, w: Workload): Promise<boolean> {
  const at = { namespace: w.namespace, name: w.name };
  return w.kind === 'StatefulSet' ? statefulSetReady(apps, at) : deploymentReady(apps, at);
}

async function waitReady(kc: KubeConfig, workloads: Workload[], timeoutMs: number) {
  const apps = apiClient(kc, AppsV1Api);
  await pollUntil(
    async () => {
      const pending: string[] = [];
      for (const w of workloads) if (!(await workloadReady(apps, w))) pending.push(`${w.kind} ${w.name}`);
      if (pending.length > 0) throw new Error(`not ready yet: ${pending.join(', ')}`);
      return true;
    },
    { timeoutMs, intervalMs: 1000, what: 'every Knative Eventing Deployment Available and StatefulSet ready' },
  );
}

export interface InstallOptions {
  kubeconfig: string;
  log?: (message: string) => void;
  /** How long the Deployments may take to become Available (default 5 min). */
  timeoutMs?: number;
}

/**
 * Builds (cached), imports and applies Knative Eventing, then waits until
 * every Deployment of it is Available. The real node must run.
 */
export async function installEventing(options: InstallOptions): Promise<void> {
  const log = options.log ?? (() => {});
  let started = Date.now();
  const binDir = await ensureEventingBinaries();
  log(`knative eventing: binaries in ${binDir} (${Date.now() - started} ms)`);
  started = Date.now();
  const archives = await ensureEventingImages(binDir);
  const cached = Date.now();
  const imported = await importCachedIntoRealNode(archives);
  log(
    `knative eventing: ${archives.length} images, archives ready in ${cached - started} ms, ${imported} imported in ${Date.now() - cached} ms`,
  );
  started = Date.now();
  const manifests = await readEventingManifests();
  const work = tempDir('cascade-eventing-');
  const file = join(work, 'eventing.yaml');
  await writeFile(file, manifests.map((m) => dump(m, { noRefs: true })).join('---\n'));
  await runCommand(kubectlPath(), [
    `--kubeconfig=${options.kubeconfig}`,
    'apply',
    '--server-side',
    '--force-conflicts',
    '-f',
    file,
  ]);
  const kc = kubeConfigFromFile(options.kubeconfig);
  await waitReady(kc, workloadsOf(manifests), options.timeoutMs ?? 300_000);
  log(`knative eventing: ${manifests.length} objects applied, every workload ready in ${Date.now() - started} ms`);
}

/**
 * Removes what runs, for a test's real node that goes next. The webhook
 * configurations go first, so that no API call waits for a webhook that is
 * gone. Then the namespace goes, its pods at once: the webhook and the IMC
 * controller drain for up to their 300 s grace period otherwise. The CRDs and
 * cluster roles stay; a later install applies them again.
 */
export async function uninstallEventing(kubeconfig: string): Promise<void> {
  const kc = kubeConfigFromFile(kubeconfig);
  const manifests = await readEventingManifests();
  const admission = apiClient(kc, AdmissionregistrationV1Api);
  const ignoreGone = (error: unknown) => {
    if (apiStatus(error) !== 404) throw error;
  };
  for (const m of manifests) {
    const name = m.metadata?.name ?? '';
    if (m.kind === 'MutatingWebhookConfiguration') {
      await admission.deleteMutatingWebhookConfiguration({ name }).catch(ignoreGone);
    } else if (m.kind === 'ValidatingWebhookConfiguration') {
      await admission.deleteValidatingWebhookConfiguration({ name }).catch(ignoreGone);
    }
  }
  const core = apiClient(kc, CoreV1Api);
  await core.deleteNamespace({ name: EVENTING_NAMESPACE }).catch(ignoreGone);
  await pollUntil(
    async () => {
      const pods = await core.listNamespacedPod({ namespace: EVENTING_NAMESPACE });
      for (const pod of pods.items) {
        const name = pod.metadata?.name ?? '';
        await core
          .deleteNamespacedPod({ namespace: EVENTING_NAMESPACE, name, gracePeriodSeconds: 0 })
          .catch(ignoreGone);
      }
      return core.readNamespace({ name: EVENTING_NAMESPACE }).then(
        () => false,
        (error: unknown) => apiStatus(error) === 404,
      );
    },
    { timeoutMs: 120_000, intervalMs: 1000, what: `namespace ${EVENTING_NAMESPACE} gone` },
  );
}
