// The archives of the images built here from cached binaries (Knative's, the
// node's own), kept in the build cache: each is written once, then read by
// every later start. An archive's name holds a key of its definition, where
// each file copied into it is named by its identity on disk: device, inode,
// size, change and modification times. A binary that is built again gets
// a new key, and so a new archive. One archive per image reference is kept.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCacheDir } from '../build-script.ts';
import { buildImage, type ImageDefinition } from './image-build.ts';
import { sha256 } from './oci-layout.ts';

/** What a file copied into an image is known by: it changes whenever the file is written again. */
export interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** An archive in the cache, with the digest of its image's manifest. */
export interface CachedArchive {
  reference: string;
  archive: string;
  digest: string;
}

/** The paths an image copies from the machine, in the order its definition names them. */
export function sourcesOf(image: ImageDefinition): string[] {
  return [image.files, ...(image.layers ?? [])].flat().flatMap((f) => ('from' in f ? [f.from] : []));
}

/** The key of an image's archive: its definition with each copied file's stamp. Pure. */
export function imageCacheKey(image: ImageDefinition, stamps: Record<string, FileStamp>): string {
  const missing = sourcesOf(image).filter((path) => !stamps[path]);
  if (missing.length > 0) throw new Error(`image ${image.reference}: no stamp of ${missing.join(', ')}`);
  const stamped = sourcesOf(image).map((path) => [path, stamps[path]]);
  return sha256(JSON.stringify({ image, stamped })).slice('sha256:'.length, 'sha256:'.length + 24);
}

/** The reference as a file name: what is not a letter, a digit, `.` or `-` becomes `_`. */
const fileStem = (reference: string) => reference.replace(/[^\w.-]/g, '_');

/** The archive's file name in the cache; its digest is in the file of the same name, ending `.json`. Pure. */
export function archiveName(reference: string, key: string): string {
  return `${fileStem(reference)}@${key}.tar`;
}

/** The files of `names` that hold another key's archive of `reference`, to remove. Pure. */
export function staleArchives(names: string[], reference: string, key: string): string[] {
  const stem = `${fileStem(reference)}@`;
  const keep = archiveName(reference, key);
  const kept = [keep, keep.replace(/\.tar$/, '.json')];
  return names.filter((n) => n.startsWith(stem) && !kept.includes(n) && !n.includes('.tmp-'));
}

export function imageCacheDir(): string {
  return join(buildCacheDir(), 'images');
}

function stampOf(path: string): FileStamp {
  const stat = statSync(path);
  if (!stat.isFile()) throw new Error(`image cache: ${path} is not a file`);
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

function readCached(archive: string): string | undefined {
  if (!existsSync(archive)) return undefined;
  try {
    return (JSON.parse(readFileSync(archive.replace(/\.tar$/, '.json'), 'utf8')) as { digest: string }).digest;
  } catch {
    return undefined;
  }
}

/** The image's archive from the cache, written first when it is not there; the files it copies must not change meanwhile. */
export async function cachedImageArchive(image: ImageDefinition, dir = imageCacheDir()): Promise<CachedArchive> {
  const stamps = Object.fromEntries(sourcesOf(image).map((path) => [path, stampOf(path)]));
  const key = imageCacheKey(image, stamps);
  const archive = join(dir, archiveName(image.reference, key));
  const cached = readCached(archive);
  if (cached) return { reference: image.reference, archive, digest: cached };
  const scratch = `${archive}.tmp-${process.pid}`;
  const digest = await buildImage(image, scratch);
  // the digest first, then the archive: a reader that finds the archive finds its digest
  writeFileSync(archive.replace(/\.tar$/, '.json'), `${JSON.stringify({ reference: image.reference, digest })}\n`);
  renameSync(scratch, archive);
  for (const name of staleArchives(readdirSync(dir), image.reference, key)) rmSync(join(dir, name), { force: true });
  return { reference: image.reference, archive, digest };
}
