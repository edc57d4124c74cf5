// Applies the project's CustomResourceDefinitions (<repo>/crds/) with kubectl
// and waits until they are Established.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBinaries } from './binaries.ts';
import { defaultBinDir, repoRoot } from './paths.ts';
import { runCommand } from './run-command.ts';

export const crdsDir = join(repoRoot, 'crds');

/**
 * The kubectl that build.sh builds beside the control plane (same version),
 * not the machine's; there once applyCrds or startCluster has run.
 */
export function kubectlPath(): string {
  return join(process.env.CASCADE_CLUSTER_BIN ?? defaultBinDir(), 'kubectl');
}

function manifestFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/** Returns the names of the applied CRDs (empty when there is nothing to apply). */
export async function applyCrds(kubeconfig: string, dir = crdsDir): Promise<string[]> {
  const files = manifestFiles(dir);
  if (files.length === 0) return [];
  const kubectl = join(await ensureBinaries(), 'kubectl');
  const base = [`--kubeconfig=${kubeconfig}`];
  const applied = await runCommand(kubectl, [
    ...base,
    'apply',
    '--server-side',
    '--force-conflicts',
    '-o',
    'name',
    ...files.flatMap((f) => ['-f', f]),
  ]);
  const crds = applied
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('customresourcedefinition.'));
  if (crds.length > 0) {
    await runCommand(kubectl, [...base, 'wait', '--for=condition=Established', '--timeout=60s', ...crds]);
  }
  return crds;
}
