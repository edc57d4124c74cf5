// Finds promtool for the tests, building it first when it is missing: the
// pinned version that build.sh builds from the Go module proxy into the cache
// beside the local control plane. A promtool on PATH is deliberately not used:
// `check metrics` findings differ between Prometheus versions, and the tests
// compare them exactly.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';

export const promtoolBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/**
 * Runs build.sh (it returns at once when the binary is cached; its progress
 * goes to our stderr) and resolves to the path it prints on its last line.
 */
export function ensurePromtool(): Promise<string> {
  return runBuildScript(promtoolBuildScript, 'promtool');
}
