// The images the real node runs, built here (image-build.ts) with no daemon
// and no registry:
//   the sandbox image   the static pause binary of the node's build, under the
//                       name containerd's configuration pins (PAUSE_IMAGE)
//   the module image    busybox from Debian's busybox-static and module.sh: a
//                       scenario module that prints lines and exits as asked
//   the function image  the release's image (function-image.ts): the run stage
//                       of image-stages.ts, Node.js from the npm package `node`
//                       and the libraries it links
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ImageDefinition, ImageFile } from './image-build.ts';
import { IMAGE_RUN } from './image-stages.ts';

const here = dirname(fileURLToPath(import.meta.url));

export const PAUSE_IMAGE = 'cascade.local/pause:3.10';
export const MODULE_IMAGE = 'cascade.local/module:1';
export const FUNCTION_IMAGE = 'cascade.local/cascade:dev';

/** The busybox-static package's binary (apt-deps.sh installs it). */
export const BUSYBOX = '/bin/busybox';

const tmp: ImageFile = { path: '/tmp', dir: true, mode: 0o1777 };

export function pauseImage(binDir: string): ImageDefinition {
  return {
    reference: PAUSE_IMAGE,
    files: [{ path: '/pause', from: join(binDir, 'pause'), mode: 0o755 }],
    config: { entrypoint: ['/pause'], user: '65535:65535' },
  };
}

/** Runs as uid 65532, as distroless' nonroot user; busybox's applets through /bin/sh's links. */
export function moduleImage(): ImageDefinition {
  const applets = ['sh', 'env', 'grep', 'sort', 'sed', 'sleep', 'head', 'tr', 'hostname', 'cat', 'ls', 'wget'];
  return {
    reference: MODULE_IMAGE,
    files: [
      { path: '/bin/busybox', from: BUSYBOX, mode: 0o755 },
      ...applets.map((a): ImageFile => ({ path: `/bin/${a}`, symlink: 'busybox' })),
      { path: '/module.sh', from: join(here, 'module.sh'), mode: 0o644 },
      { path: '/etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532::/tmp:/bin/sh\n' },
      tmp,
    ],
    config: { entrypoint: ['/bin/sh', '/module.sh'], user: '65532:65532', env: { PATH: '/bin' } },
  };
}

/** The shared libraries `ldd` lists for a binary, the dynamic loader among them. */
export function linkedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

/** The image's layers, bottom first, as functionImage lays them out. */
export const FUNCTION_LAYERS = [
  'Node.js and the libraries it links',
  'the production dependencies',
  'the compiled build/',
];

/**
 * The function's image, in three layers (FUNCTION_LAYERS): the one that
 * changes most is on top. `app` is the run stage's directory
 * (local/node/image-stages.ts), `node` the Node.js binary (node-binary.ts),
 * `libraries` what it links.
 */
export function functionImage(options: {
  reference: string;
  app: string;
  node: string;
  libraries: string[];
  cmd: string[];
  created: string;
  annotations: Record<string, string>;
}): ImageDefinition {
  const { workdir, uid, gid, env } = IMAGE_RUN;
  const app = (name: string): ImageFile => ({ path: `${workdir}/${name}`, from: join(options.app, name) });
  return {
    reference: options.reference,
    files: [
      { path: '/usr/local/bin/node', from: options.node, mode: 0o755 },
      ...options.libraries.map((lib): ImageFile => ({ path: lib, from: lib, mode: 0o755 })),
      { path: '/etc/passwd', content: `root:x:0:0:root:/root:/bin/sh\nnode:x:${uid}:${gid}::/home/node:/bin/sh\n` },
      { path: '/etc/group', content: `root:x:0:\nnode:x:${gid}:\n` },
      tmp,
    ],
    layers: [[app('package.json'), app('package-lock.json'), app('node_modules')], [app('build')]],
    config: {
      cmd: options.cmd,
      user: `${uid}:${gid}`,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...env },
      workingDir: workdir,
      exposedPorts: [8080],
    },
    created: options.created,
    annotations: options.annotations,
    gzip: true,
  };
}
