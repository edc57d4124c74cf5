// The release as the local cluster installs it, the way a user does
// (docs/deploy/): `npm run dist` written into the build cache, under the key
// of its inputs (release-cache.ts), or taken from there when a release of the
// same inputs is there. Its image is pushed to the local registry, which
// keeps its digest. cascade-deploy.ts then applies crds.yaml, and
// install.yaml through the local overlay.
import { existsSync, mkdirSync, renameSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_FILES, writeDist } from '../../scripts/dist.ts';
import { DEFAULT_IMAGE_REPOSITORY } from '../node/function-image.ts';
import { ensureRegistryTools, pushImage, REGISTRY } from '../registry/registry.ts';
import {
  readCachedRelease,
  releaseCacheDir,
  releaseEntries,
  releaseInputs,
  releaseKey,
  releasesToPrune,
} from './release-cache.ts';

export interface PublishedRelease {
  /** dist/'s install.yaml: knative/ but the CRDs, the image by digest. */
  install: string;
  /** dist/'s crds.yaml. */
  crds: string;
  /** The repository install.yaml names, and the local registry's copy of it. */
  repository: { release: string; local: string };
  digest: string;
}

type Log = (line: string) => void;

/** Written into a scratch directory of the cache, then renamed to its key: a release under a key is complete. */
async function writeCached(cache: string, key: string, repository: string): Promise<string> {
  const out = join(cache, key);
  const scratch = join(cache, `${key}.tmp-${process.pid}`);
  mkdirSync(cache, { recursive: true });
  await writeDist(scratch, repository);
  // another process may have kept the same release meanwhile: it is the same, byte for byte
  if (readCachedRelease(out, repository)) rmSync(scratch, { recursive: true, force: true });
  else {
    rmSync(out, { recursive: true, force: true });
    renameSync(scratch, out);
  }
  for (const name of releasesToPrune(releaseEntries(cache), key)) rmSync(join(cache, name), { recursive: true });
  return out;
}

/** The release of this work tree, from the cache or written there; resolves to its directory and image digest. */
export async function cachedRelease(repository: string, log: Log): Promise<{ out: string; digest: string }> {
  const cache = releaseCacheDir();
  const key = releaseKey(releaseInputs(repository));
  const out = join(cache, key);
  const found = readCachedRelease(out, repository);
  if (found) {
    const now = new Date();
    utimesSync(out, now, now);
    log(`release: ${key} taken from the cache, ${out}`);
    return { out, digest: found };
  }
  await writeCached(cache, key, repository);
  const digest = readCachedRelease(out, repository);
  if (!digest || !existsSync(out)) throw new Error(`release: ${out} is not a complete release`);
  return { out, digest };
}

/** The release of this work tree for the default repository: needs no cluster, so it may start first. */
export function prepareRelease(log: Log = () => {}): Promise<{ out: string; digest: string }> {
  return cachedRelease(DEFAULT_IMAGE_REPOSITORY, log);
}

/**
 * Pushes the release's image to the local registry: the release given, or
 * prepareRelease's. Throws if the pushed digest is not dist's.
 */
export async function publishRelease(
  log: Log = () => {},
  prepared: Promise<{ out: string; digest: string }> = prepareRelease(log),
): Promise<PublishedRelease> {
  const started = Date.now();
  const [release, { crane }] = await Promise.all([prepared, ensureRegistryTools()]);
  const local = `${REGISTRY}/cascade/cascade`;
  const ready = Date.now();
  const pushed = await pushImage(crane, join(release.out, DIST_FILES.image), local, 'release');
  if (pushed !== `${local}@${release.digest}`)
    throw new Error(`release: pushed ${pushed}, but dist wrote ${release.digest}`);
  log(`release: ready in ${ready - started} ms, pushed to ${pushed} in ${Date.now() - ready} ms`);
  return {
    install: join(release.out, DIST_FILES.install),
    crds: join(release.out, DIST_FILES.crds),
    repository: { release: DEFAULT_IMAGE_REPOSITORY, local },
    digest: release.digest,
  };
}
