// Finds the component binaries, building them with build.sh when missing.
import { runBuildScript } from '../build-script.ts';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { buildScript, defaultBinDir } from './paths.ts';

/** The control plane's components, and kubectl of the same version for the tests and `npm start`. */
export const componentBinaries = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
  'kubectl',
];

export function missingBinaries(binDir: string): string[] {
  return componentBinaries.filter((name) => {
    try {
      accessSync(join(binDir, name), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Runs build.sh (its progress goes to our stderr) and returns the directory
 * it prints on its last line. A build that fails names the component.
 */
export function runBuild(): Promise<string> {
  return runBuildScript(buildScript, 'cluster');
}

/** The binary dir, building what is missing first. */
export async function ensureBinaries(): Promise<string> {
  const binDir = process.env.CASCADE_CLUSTER_BIN ?? defaultBinDir();
  if (missingBinaries(binDir).length === 0) return binDir;
  const built = await runBuild();
  const missing = missingBinaries(built);
  if (missing.length > 0) throw new Error(`cluster: build.sh did not produce ${missing.join(', ')} in ${built}`);
  return built;
}
