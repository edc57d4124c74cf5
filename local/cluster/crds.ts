// Applies the project's CustomResourceDefinitions (<repo>/crds/) with kubectl
// and waits until they are Established.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.ts';
import { runCommand } from './run-command.ts';

export const crdsDir = join(repoRoot, 'crds');

export function kubectlPath(): string {
  for (const candidate of ['/usr/local/bin/kubectl', '/usr/bin/kubectl']) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('which', ['kubectl'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('cluster: kubectl not found (looked in /usr/local/bin, /usr/bin and PATH)');
  }
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
  const kubectl = kubectlPath();
  const base = [`--kubeconfig=${kubeconfig}`];
  const applied = await runCommand(kubectl, [
    ...base, 'apply', '--server-side', '--force-conflicts', '-o', 'name', ...files.flatMap((f) => ['-f', f]),
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
