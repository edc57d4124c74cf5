// The releases `npm start` and the tests publish, kept in the build cache.
// Each is kept by a key of what writeDist reads: the content of every file its
// clean copy holds, the build's identity, the image's repository, the Node.js
// that runs npm, and the host libraries the image copies. Two runs of
// writeDist on the same inputs write the same release, byte for byte
// (docs/deploy/image.md), so a release found under its key is the one a new
// run would write. A work tree with changes gets the key of its content: it
// reuses only a release of that same content. The newest few are kept.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildCacheDir } from '../build-script.ts';
import { repoRoot } from '../cluster/paths.ts';
import { buildInfo, contextFiles, type BuildInfo } from '../node/image-stages.ts';
import { linkedLibraries } from '../node/images.ts';

/** One file of the clean copy: its path, what it is, the SHA-256 of its bytes or of its link's target. */
export interface SourceFile {
  path: string;
  /** `x`: a file its owner may run; `f`: another file; `l`: a symbolic link. */
  kind: 'x' | 'f' | 'l';
  sha256: string;
}

export interface ReleaseInputs {
  files: SourceFile[];
  build: BuildInfo;
  repository: string;
  /** The version of the Node.js that runs npm in the stages. */
  node: string;
  /** The host's libraries the image copies beside Node.js, each with its SHA-256. */
  libraries: { path: string; sha256: string }[];
}

/** How many releases the cache keeps: the newest, by when they were last used. */
export const RELEASES_KEPT = 3;

const hex = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** The key a release is kept under: the hash of its inputs, the files in path order. Pure. */
export function releaseKey(inputs: ReleaseInputs): string {
  const files = [...inputs.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const { build, repository, node, libraries } = inputs;
  return hex(JSON.stringify({ files, build, repository, node, libraries })).slice(0, 32);
}

/** The digest of a cached release when its release.json and its image's index.json agree, else undefined. Pure. */
export function cachedDigest(releaseJson: string, indexJson: string, repository: string): string | undefined {
  try {
    const release = JSON.parse(releaseJson) as { image?: { repository?: string; digest?: string } };
    const index = JSON.parse(indexJson) as { manifests?: { digest?: string }[] };
    const digest = release.image?.digest;
    if (!digest || release.image?.repository !== repository) return undefined;
    return index.manifests?.length === 1 && index.manifests[0]?.digest === digest ? digest : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of the cache to remove: all but the `kept` last used, `current` always kept, scratch copies left to their writer. Pure. */
export function releasesToPrune(entries: { name: string; usedMs: number }[], current: string, kept = RELEASES_KEPT) {
  const releases = entries.filter((e) => !e.name.includes('.tmp-'));
  const others = releases.filter((e) => e.name !== current).sort((a, b) => b.usedMs - a.usedMs);
  return others.slice(Math.max(0, kept - 1)).map((e) => e.name);
}

function sourceFile(root: string, path: string): SourceFile {
  const full = join(root, path);
  const stat = lstatSync(full);
  if (stat.isSymbolicLink()) return { path, kind: 'l', sha256: hex(readlinkSync(full)) };
  if (!stat.isFile()) throw new Error(`release cache: ${path} is neither a file nor a link`);
  return { path, kind: stat.mode & 0o100 ? 'x' : 'f', sha256: hex(readFileSync(full)) };
}

/** The inputs of a release of the work tree at `root`, read now. */
export function releaseInputs(repository: string, root = repoRoot): ReleaseInputs {
  const libraries = linkedLibraries(process.execPath).map((path) => ({ path, sha256: hex(readFileSync(path)) }));
  return {
    files: contextFiles(root).map((path) => sourceFile(root, path)),
    build: buildInfo(root),
    repository,
    node: process.version,
    libraries,
  };
}

export function releaseCacheDir(): string {
  return join(buildCacheDir(), 'releases');
}

/** The image's digest of the release kept in `dir`, when it is complete and for `repository`. */
export function readCachedRelease(dir: string, repository: string): string | undefined {
  const files = [join(dir, 'release.json'), join(dir, 'image', 'index.json')];
  if (!files.every((f) => existsSync(f))) return undefined;
  const [release, index] = files.map((f) => readFileSync(f, 'utf8'));
  return cachedDigest(release!, index!, repository);
}

/** The cache's entries, with when each was last used. */
export function releaseEntries(cache: string): { name: string; usedMs: number }[] {
  if (!existsSync(cache)) return [];
  return readdirSync(cache).map((name) => ({ name, usedMs: statSync(join(cache, name)).mtimeMs }));
}
