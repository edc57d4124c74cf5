// Installs Knative Serving and Traefik, its networking layer, on the local
// cluster's real node. The images built here are imported into the node's
// containerd. Then Serving's own config/core manifests (manifests.ts) and
// Traefik's (traefik.ts) are applied with the control plane's kubectl, until
// every Deployment is Available. Applying again changes nothing that is in place.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { dump } from 'js-yaml';
import { writeFile } from 'node:fs/promises';
import { kubectlPath } from '../../cluster/crds.ts';
import { sleep } from '../../cluster/poll.ts';
import { runCommand } from '../../cluster/run-command.ts';
import { cachedImageArchive } from '../../node/image-cache.ts';
import { importCachedIntoRealNode } from '../../node/node.ts';
import { tempDir } from '../../temp-dir.ts';
import { ensureServingBinaries, servingModuleDirs, type ServingBinaries } from './binaries.ts';
import { SERVING_COMMANDS, servingImage, traefikImage } from './images.ts';
import {
  applyPhases,
  SERVING_NAMESPACE,
  servingObjects,
  SYMLINKED_FILES,
  type KubeObject,
  type ServingSettings,
} from './manifests.ts';
import { TRAEFIK_NAMESPACE, traefikObjects } from './traefik.ts';

type Log = (message: string) => void;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(name) ? [path] : [];
    });
}

/** The texts of serving's config/core, the six symlinked files taken from the modules they point into. */
export async function servingManifestTexts(): Promise<string[]> {
  const dirs = await servingModuleDirs();
  const core = join(dirs.serving, 'config/core');
  const present = new Set(yamlFiles(core).map((f) => relative(core, f)));
  const files = [
    ...[...present].map((f) => join(core, f)),
    ...Object.entries(SYMLINKED_FILES)
      .filter(([name]) => !present.has(name))
      .map(([, from]) => join(dirs[from.module], from.path)),
  ];
  return files.map((f) => readFileSync(f, 'utf8'));
}

/** Each image's archive, from the image cache (written there once), imported unless the node holds it. */
export async function importServingImages(binaries: ServingBinaries, log: Log): Promise<void> {
  const started = Date.now();
  const images = [
    ...SERVING_COMMANDS.map((cmd) =>
      servingImage(cmd, cmd === 'queue' ? binaries.queueProxy : join(binaries.serving, cmd)),
    ),
    traefikImage(binaries.traefik),
  ];
  const archives = [];
  for (const image of images) archives.push(await cachedImageArchive(image));
  const cached = Date.now();
  const imported = await importCachedIntoRealNode(archives);
  log(
    `knative serving: ${images.length} images, archives ready in ${cached - started} ms, ${imported} imported in ${Date.now() - cached} ms`,
  );
}

async function apply(kubeconfig: string, objects: KubeObject[]): Promise<string> {
  if (objects.length === 0) return '';
  const file = join(tempDir('cascade-knative-apply-'), 'objects.yaml');
  await writeFile(file, objects.map((o) => dump(o, { noRefs: true, lineWidth: -1 })).join('---\n'));
  return runCommand(kubectlPath(), [
    `--kubeconfig=${kubeconfig}`,
    'apply',
    '--server-side',
    '--force-conflicts',
    '--field-manager=cascade-knative-install',
    '-f',
    file,
  ]);
}

/** Applies, again for up to `budgetMs` while a webhook that is not serving yet refuses it. */
async function applyRetrying(kubeconfig: string, objects: KubeObject[], budgetMs = 180_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await apply(kubeconfig, objects);
      return;
    } catch (error) {
      if (Date.now() - started > budgetMs) throw error;
      await sleep(2000);
    }
  }
}

async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  return runCommand(kubectlPath(), [`--kubeconfig=${kubeconfig}`, ...args]);
}

export interface InstallOptions extends ServingSettings {
  log?: Log;
  /** How long the Deployments may take to be Available. */
  timeoutSeconds?: number;
}

/** Builds (cached), imports the images, applies, and waits until Serving and Traefik are Available. */
export async function installServing(kubeconfig: string, options: InstallOptions = {}): Promise<void> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const binaries = await ensureServingBinaries();
  await importServingImages(binaries, log);
  const objects = [...servingObjects(await servingManifestTexts(), options), ...traefikObjects()];
  const [first, rest, webhooks] = applyPhases(objects);
  await apply(kubeconfig, first!);
  const crds = first!.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => `crd/${o.metadata.name}`);
  await kubectl(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', ...crds]);
  await applyRetrying(kubeconfig, rest!);
  await applyRetrying(kubeconfig, webhooks!);
  const timeout = `--timeout=${options.timeoutSeconds ?? 300}s`;
  for (const ns of [SERVING_NAMESPACE, TRAEFIK_NAMESPACE]) {
    await kubectl(kubeconfig, ['wait', '--for=condition=Available', 'deployment', '--all', '-n', ns, timeout]);
  }
  log(`knative serving: installed and Available in ${Date.now() - started} ms`);
}

/**
 * Removes what installServing made that would stand in a later install's way:
 * the webhook configurations (their webhook gone, they would refuse every
 * write they match) and the two namespaces. The pods go first, at once: the
 * activator's grace period is 600 s, and the namespace controller would wait
 * that long before it looks again. The CRDs and cluster roles stay. Delete the
 * Knative Services first: a Route's finalizer needs Serving's controller.
 */
export async function uninstallServing(kubeconfig: string): Promise<void> {
  const objects = [...servingObjects(await servingManifestTexts()), ...traefikObjects()];
  const [, , webhooks] = applyPhases(objects);
  const names = webhooks!.map((o) => `${o.kind.toLowerCase()}/${o.metadata.name}`);
  await kubectl(kubeconfig, ['delete', '--ignore-not-found', '--wait=false', ...names]);
  for (const ns of [SERVING_NAMESPACE, TRAEFIK_NAMESPACE]) {
    await kubectl(kubeconfig, ['scale', 'deployment', '--all', '-n', ns, '--replicas=0']);
    await kubectl(kubeconfig, [
      'delete',
      'pod',
      '--all',
      '-n',
      ns,
      '--ignore-not-found',
      '--grace-period=0',
      '--force',
    ]);
  }
  await kubectl(kubeconfig, [
    'delete',
    '--ignore-not-found',
    '--timeout=120s',
    'namespace',
    SERVING_NAMESPACE,
    TRAEFIK_NAMESPACE,
  ]);
}
