// Writes an OCI image archive with no daemon and no registry: one layer made
// with tar from a staged root file system, the config, the manifest and the
// index (oci-layout.ts), all in a tar that `ctr images import` reads. The
// layer's entries are root-owned, sorted and dated 1970, so the same files
// give the same digests.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  describe,
  imageConfig,
  imageManifest,
  layoutIndex,
  MEDIA,
  OCI_LAYOUT_FILE,
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
  files: ImageFile[];
  config: RunConfig;
}

function stage(root: string, file: ImageFile): void {
  const target = join(root, file.path);
  mkdirSync(dirname(target), { recursive: true });
  if ('symlink' in file) symlinkSync(file.symlink, target);
  else if ('dir' in file) mkdirSync(target, { recursive: true });
  else if ('from' in file) cpSync(file.from, target, { recursive: true, dereference: true });
  else writeFileSync(target, file.content);
  if (!('symlink' in file) && file.mode !== undefined) chmodSync(target, file.mode);
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

function writeBlob(layout: string, bytes: Buffer | string): void {
  const digest = describe('', bytes).digest;
  writeFileSync(join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length)), bytes);
}

/** Builds the image into the archive `out` (a tar of an OCI layout) and returns the manifest's digest. */
export async function buildImage(image: ImageDefinition, out: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'cascade-image-'));
  try {
    const root = join(work, 'root');
    const layout = join(work, 'layout');
    mkdirSync(root);
    mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
    for (const file of image.files) stage(root, file);
    const layerFile = join(work, 'layer.tar');
    await run('tar', [...TAR_FLAGS, '-cf', layerFile, '-C', root, '.']);
    const layerBytes = readFileSync(layerFile);
    const layer = describe(MEDIA.layer, layerBytes);
    writeBlob(layout, layerBytes);
    const config = JSON.stringify(imageConfig(image.config, [layer.digest]));
    writeBlob(layout, config);
    const manifest = JSON.stringify(imageManifest(describe(MEDIA.config, config), [layer]));
    writeBlob(layout, manifest);
    const manifestDescriptor = describe(MEDIA.manifest, manifest);
    writeFileSync(join(layout, 'index.json'), JSON.stringify(layoutIndex(manifestDescriptor, image.reference)));
    writeFileSync(join(layout, 'oci-layout'), OCI_LAYOUT_FILE);
    mkdirSync(dirname(out), { recursive: true });
    await run('tar', [...TAR_FLAGS, '-cf', out, '-C', layout, '.']);
    return manifestDescriptor.digest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
