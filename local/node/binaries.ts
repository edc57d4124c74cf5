// The real node's binaries, built by build.sh when missing, and the Debian
// packages it needs, installed by apt-deps.sh when missing.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runBuildScript } from '../build-script.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const nodeBuildScript = join(here, 'build.sh');

/** Runs apt-deps.sh: at once when every package is there. build.sh runs it too. */
export async function ensureNodePackages(): Promise<void> {
  await promisify(execFile)('bash', [join(here, 'apt-deps.sh')]);
}

/** Runs build.sh (at once when everything is cached) and resolves to the binaries' directory. */
export function ensureNodeBinaries(): Promise<string> {
  return runBuildScript(nodeBuildScript, 'real node');
}
