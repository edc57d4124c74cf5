// The real node's binaries, built by build.sh when missing.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';

export const nodeBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/** Runs build.sh (at once when everything is cached) and resolves to the binaries' directory. */
export function ensureNodeBinaries(): Promise<string> {
  return runBuildScript(nodeBuildScript, 'real node');
}
