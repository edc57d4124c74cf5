// Builds the sandbox and module images (images.ts) and imports them into the
// real node's containerd, in the namespace the CRI plugin reads (k8s.io).
// Other images, the function's, are imported later with importImage.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildImage } from './image-build.ts';
import { moduleImage, pauseImage } from './images.ts';
import { nodePaths } from './node-config.ts';

const run = promisify(execFile);

/** `ctr images import` of one archive into the node's containerd. */
export async function importImage(binDir: string, archive: string): Promise<void> {
  await run(join(binDir, 'ctr'), [
    '--address',
    nodePaths.containerdSocket,
    '-n',
    'k8s.io',
    'images',
    'import',
    archive,
  ]);
}

export async function importImages(binDir: string, dir: string, log: (message: string) => void): Promise<void> {
  const started = Date.now();
  const archives = [join(dir, 'pause.tar'), join(dir, 'module.tar')];
  await buildImage(pauseImage(binDir), archives[0]!);
  await buildImage(moduleImage(), archives[1]!);
  for (const archive of archives) await importImage(binDir, archive);
  log(`real node: ${archives.length} images built and imported in ${Date.now() - started} ms`);
}
