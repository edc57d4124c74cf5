// Writes OCI images with no daemon and no registry. Each layer is made with
// tar from a staged root file system, then come the config, the manifest and
// the index of oci-layout.ts. The OCI image layout directory that writeLayout
// leaves is what `npm run dist` ships. A tar of it, from buildImage, is what
// `ctr images import` reads. The layers' entries are root-owned, sorted and dated 1970, and their
// modes are 0755 or 0644 whatever the umask, so the same files give the same
// digests. A gzip-compressed layer is compressed here, by the Node.js zlib.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  createReadStream,
  createWriteStream,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import {
  describe,
  imageConfig,
  imageManifest,
  layoutIndex,
  MEDIA,
  OCI_LAYOUT_FILE,
  type Descriptor,
  type RunConfig,
} from './oci-layout.ts';

const run = promisify(execFile);

/** One entry of the image's root file system, at an absolute path. */
export type ImageFile =
  | { path: string; from: string; mode?: number }
  | { path: string; content: string; mode?: number }
  | { path: string; symlink: string }
  | { path: string; dir: true; mode?: number };

export interface ImageDefinition {
  /** The reference containerd stores it under, such as `cascade.local/module:1`. */
  reference: string;
  /** The bottom layer. */
  files: ImageFile[];
  /** Layers above it, bottom first. */
  layers?: ImageFile[][];
  config: RunConfig;
  /** The config's `created`, else 1970-01-01T00:00:00Z. */
  created?: string;
  /** The manifest's annotations (a part of the image's digest). */
  annotations?: Record<string, string>;
  /** Layers compressed with gzip (else plain tar). */
  gzip?: boolean;
}

/** What writeLayout wrote: the manifest's descriptor and the bytes of every blob. */
export interface Layout {
  manifest: Descriptor;
  /** The image's size: the manifest, the config and the layers, as a registry stores them. */
  size: number;
}

/** Directories 0755, files 0755 when their owner may run them, else 0644: the umask of the machine leaves no trace. */
function normalizeModes(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (!stat.isDirectory()) {
    chmodSync(path, stat.mode & 0o100 ? 0o755 : 0o644);
    return;
  }
  chmodSync(path, 0o755);
  for (const name of readdirSync(path)) normalizeModes(join(path, name));
}

function stage(root: string, file: ImageFile): void {
  const target = join(root, file.path);
  mkdirSync(dirname(target), { recursive: true });
  if ('symlink' in file) symlinkSync(file.symlink, target);
  else if ('dir' in file) mkdirSync(target, { recursive: true });
  // a source given by a link is copied as what it links to; links inside a directory stay links, as written
  else if ('from' in file) cpSync(realpathSync(file.from), target, { recursive: true, verbatimSymlinks: true });
  else writeFileSync(target, file.content);
}

function stageLayer(root: string, files: ImageFile[]): void {
  mkdirSync(root);
  for (const file of files) stage(root, file);
  normalizeModes(root);
  for (const file of files)
    if (!('symlink' in file) && file.mode !== undefined) chmodSync(join(root, file.path), file.mode);
}

// POSIX headers without the times a file's reading changes, named without tar's pid
const TAR_FLAGS = [
  '--sort=name',
  '--numeric-owner',
  '--owner=0',
  '--group=0',
  '--mtime=@0',
  '--format=posix',
  '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
];

const blobPath = (layout: string, digest: string) => join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length));

function writeBlob(layout: string, bytes: Buffer | string): void {
  writeFileSync(blobPath(layout, describe('', bytes).digest), bytes);
}

/** A pass-through stream that hashes and counts what goes through it. */
function hashing(): Transform & { digest(): string; size(): number } {
  const hash = createHash('sha256');
  let size = 0;
  let digest: string | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return Object.assign(stream, {
    digest: () => (digest ??= `sha256:${hash.digest('hex')}`),
    size: () => size,
  });
}

/** One layer's blob from its tar; resolves to its descriptor and its diff ID (the digest of the tar). */
async function layerBlob(layout: string, tar: string, gzip: boolean): Promise<{ layer: Descriptor; diffId: string }> {
  const plain = hashing();
  const stored = hashing();
  const temp = join(layout, 'blobs', 'layer.partial');
  const source = createReadStream(tar);
  if (gzip) await pipeline(source, plain, createGzip({ level: 6 }), stored, createWriteStream(temp));
  else await pipeline(source, plain, stored, createWriteStream(temp));
  renameSync(temp, blobPath(layout, stored.digest()));
  const mediaType = gzip ? MEDIA.layerGzip : MEDIA.layer;
  return { layer: { mediaType, digest: stored.digest(), size: stored.size() }, diffId: plain.digest() };
}

/** Writes the image as an OCI image layout in the directory `layout` (made anew); resolves to its manifest's descriptor. */
export async function writeLayout(image: ImageDefinition, layout: string): Promise<Layout> {
  const work = mkdtempSync(join(tmpdir(), 'cascade-image-'));
  try {
    rmSync(layout, { recursive: true, force: true });
    mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
    const layers: Descriptor[] = [];
    const diffIds: string[] = [];
    for (const [i, files] of [image.files, ...(image.layers ?? [])].entries()) {
      const root = join(work, `root${i}`);
      stageLayer(root, files);
      const tar = join(work, `layer${i}.tar`);
      await run('tar', [...TAR_FLAGS, '-cf', tar, '-C', root, '.']);
      rmSync(root, { recursive: true, force: true });
      const { layer, diffId } = await layerBlob(layout, tar, image.gzip ?? false);
      layers.push(layer);
      diffIds.push(diffId);
    }
    const config = JSON.stringify(imageConfig(image.config, diffIds, image.created));
    writeBlob(layout, config);
    const manifest = JSON.stringify(imageManifest(describe(MEDIA.config, config), layers, image.annotations));
    writeBlob(layout, manifest);
    const manifestDescriptor = describe(MEDIA.manifest, manifest);
    writeFileSync(join(layout, 'index.json'), JSON.stringify(layoutIndex(manifestDescriptor, image.reference)));
    writeFileSync(join(layout, 'oci-layout'), OCI_LAYOUT_FILE);
    const size = [...layers, describe('', config), manifestDescriptor].reduce((sum, d) => sum + d.size, 0);
    return { manifest: manifestDescriptor, size };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The layout directory `layout` in the tar `out`, as `ctr images import` reads it. */
export async function archiveLayout(layout: string, out: string): Promise<void> {
  mkdirSync(dirname(out), { recursive: true });
  await run('tar', [...TAR_FLAGS, '-cf', out, '-C', layout, '.']);
}

/** The layout's index.json again, naming its one manifest `reference` (the image and its digest stay as they are). */
export function renameLayout(layout: string, reference: string): void {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const { mediaType, digest, size } = index.manifests[0]!;
  writeFileSync(join(layout, 'index.json'), JSON.stringify(layoutIndex({ mediaType, digest, size }, reference)));
}

/** Builds the image into the archive `out` (a tar of an OCI layout) and returns the manifest's digest. */
export async function buildImage(image: ImageDefinition, out: string): Promise<string> {
  const layout = mkdtempSync(join(tmpdir(), 'cascade-layout-'));
  try {
    const { manifest } = await writeLayout(image, layout);
    await archiveLayout(layout, out);
    return manifest.digest;
  } finally {
    rmSync(layout, { recursive: true, force: true });
  }
}
