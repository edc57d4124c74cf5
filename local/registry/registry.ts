// The local cluster's OCI registry: CNCF Distribution's, built by build.sh
// and run by the real node, node.ts. It listens on 127.0.0.1, and a door gives
// the node's network namespace the same address. So one reference names an
// image for the host that pushes it and for the node's containerd that pulls
// it. crane pushes an OCI image layout there and answers its digest.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runBuildScript } from '../build-script.ts';
import { REAL_NODE } from '../node/node-config.ts';

const run = promisify(execFile);
export const registryBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');

/** Where the host and the node both reach the registry. */
export const REGISTRY = `127.0.0.1:${REAL_NODE.registry.port}`;

/** Builds the registry and crane when missing; resolves to their paths. */
export async function ensureRegistryTools(): Promise<{ registry: string; crane: string }> {
  const [registry, crane] = await Promise.all([
    runBuildScript(registryBuildScript, 'registry', ['registry']),
    runBuildScript(registryBuildScript, 'crane', ['crane']),
  ]);
  return { registry, crane };
}

/** The registry's configuration: plain HTTP on loopback, blobs on the node's disk, deletes allowed. */
export function registryConfig(storageDir: string): string {
  return `version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: ${storageDir}
  delete:
    enabled: true
http:
  addr: ${REGISTRY}
`;
}

/** Pushes the OCI image layout directory `layout` to `repository` at `tag` with crane; resolves to `repository@sha256:...`. */
export async function pushImage(crane: string, layout: string, repository: string, tag: string): Promise<string> {
  const { stdout } = await run(crane, ['push', layout, `${repository}:${tag}`]);
  const pushed = stdout.trim().split('\n').pop() ?? '';
  if (!/@sha256:[0-9a-f]{64}$/.test(pushed)) throw new Error(`crane push printed no digest: ${stdout}`);
  return pushed;
}
