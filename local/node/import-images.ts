// Imports image archives into the real node's containerd, in the namespace
// the CRI plugin reads (k8s.io): the sandbox and module images (images.ts) as
// the node starts, Knative's as it is installed, the function's later. An
// image that containerd already holds, under the same reference and by the
// same digest, is not imported again. The node's containerd starts empty:
// host.sh removes its state with the node.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedImageArchive, type CachedArchive } from './image-cache.ts';
import { moduleImage, pauseImage } from './images.ts';
import { nodePaths } from './node-config.ts';

const run = promisify(execFile);

/** How many imports run at once: each one is mostly disk, and these machines have 2 cores. */
const IMPORTS_AT_ONCE = 3;

const ctr = (binDir: string, ...args: string[]) =>
  run(join(binDir, 'ctr'), ['--address', nodePaths.containerdSocket, '-n', 'k8s.io', ...args], {
    maxBuffer: 16 << 20,
  });

/** `ctr images import` of one archive into the node's containerd. */
export async function importImage(binDir: string, archive: string): Promise<void> {
  await ctr(binDir, 'images', 'import', archive);
}

/** The images `ctr images ls` lists, each reference with its target's digest. Pure. */
export function heldImages(listing: string): Map<string, string> {
  const held = new Map<string, string>();
  for (const line of listing.split('\n').slice(1)) {
    const [reference, , digest] = line.trim().split(/\s+/);
    if (reference && digest?.startsWith('sha256:')) held.set(reference, digest);
  }
  return held;
}

/** The archives whose image containerd does not hold by that reference and digest. Pure. */
export function importsNeeded<T extends { reference: string; digest: string }>(
  archives: T[],
  held: Map<string, string>,
): T[] {
  return archives.filter((a) => held.get(a.reference) !== a.digest);
}

/** Imports the archives the node's containerd lacks, a few at once; resolves to how many it imported. */
export async function importArchives(binDir: string, archives: CachedArchive[]): Promise<number> {
  const { stdout } = await ctr(binDir, 'images', 'ls');
  const queue = importsNeeded(archives, heldImages(stdout));
  const count = queue.length;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await importImage(binDir, next.archive);
  };
  await Promise.all(Array.from({ length: IMPORTS_AT_ONCE }, worker));
  return count;
}

/** The sandbox and module images, from the image cache, into the node's containerd. */
export async function importImages(binDir: string, log: (message: string) => void): Promise<void> {
  const started = Date.now();
  const archives = [await cachedImageArchive(pauseImage(binDir)), await cachedImageArchive(moduleImage())];
  const imported = await importArchives(binDir, archives);
  log(`real node: ${archives.length} images, ${imported} imported, in ${Date.now() - started} ms`);
}
