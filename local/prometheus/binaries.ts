// Finds promtool and prometheus for the tests, building them first when they
// are missing: the pinned version that build.sh builds from the Go module
// proxy into the cache beside the local control plane. Binaries on PATH are
// deliberately not used: `check metrics` findings differ between Prometheus
// versions, and the tests compare them exactly.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';

export const prometheusBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/**
 * Runs build.sh for one command (it returns at once when the binary is
 * cached; its progress goes to our stderr) and resolves to the path it prints
 * on its last line.
 */
function ensure(command: 'promtool' | 'prometheus'): Promise<string> {
  return runBuildScript(prometheusBuildScript, command, [command]);
}

export const ensurePromtool = () => ensure('promtool');
export const ensurePrometheus = () => ensure('prometheus');
