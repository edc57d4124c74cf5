// The binaries of Knative Serving and its queue-proxy (build.sh) and Traefik
// (traefik-build.sh), built from the Go module proxy into
// ~/.cache/cascade-cluster when missing; and the module copies whose config/
// folders hold Serving's release manifests.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runBuildScript } from '../../build-script.ts';
import { SERVING_VERSION } from './images.ts';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

export interface ServingBinaries {
  /** The directory of controller, webhook, activator and autoscaler. */
  serving: string;
  queueProxy: string;
  traefik: string;
}

/** Builds what is missing, the two builds side by side (each under its own lock). */
export async function ensureServingBinaries(): Promise<ServingBinaries> {
  const [serving, traefik] = await Promise.all([
    runBuildScript(join(here, 'build.sh'), 'Knative Serving'),
    runBuildScript(join(here, 'traefik-build.sh'), 'Traefik'),
  ]);
  return { serving, queueProxy: join(serving, 'queue'), traefik };
}

/** The pinned module versions of local/knative/serving-module.sh, by module. */
function pinnedVersions(): { networking: string; caching: string } {
  const text = readFileSync(join(here, '../serving-module.sh'), 'utf8');
  const pin = (name: string) => {
    const found = new RegExp(`^${name}="([^"]+)"`, 'm').exec(text)?.[1];
    if (!found) throw new Error(`serving-module.sh sets no ${name}`);
    return found;
  };
  return { networking: pin('SERVING_NETWORKING_VERSION'), caching: pin('SERVING_CACHING_VERSION') };
}

async function moduleDir(path: string, version: string): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `${path}@${version}`], { cwd: here });
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

/** Where serving's, networking's and caching's module copies are (downloaded if missing). */
export async function servingModuleDirs(): Promise<{ serving: string; networking: string; caching: string }> {
  const pins = pinnedVersions();
  const [serving, networking, caching] = await Promise.all([
    moduleDir('knative.dev/serving', SERVING_VERSION),
    moduleDir('knative.dev/networking', pins.networking),
    moduleDir('knative.dev/caching', pins.caching),
  ]);
  return { serving, networking, caching };
}
