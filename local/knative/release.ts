// The release as the local cluster installs it, the way a user does
// (docs/deploy/): `npm run dist` written to a temporary directory, its image
// pushed to the local registry, which keeps its digest. cascade-deploy.ts
// then applies crds.yaml, and install.yaml through the local overlay.
import { join } from 'node:path';
import { DIST_FILES, writeDist } from '../../scripts/dist.ts';
import { DEFAULT_IMAGE_REPOSITORY } from '../node/function-image.ts';
import { ensureRegistryTools, pushImage, REGISTRY } from '../registry/registry.ts';
import { tempDir } from '../temp-dir.ts';

export interface PublishedRelease {
  /** dist/'s install.yaml: knative/ but the CRDs, the image by digest. */
  install: string;
  /** dist/'s crds.yaml. */
  crds: string;
  /** The repository install.yaml names, and the local registry's copy of it. */
  repository: { release: string; local: string };
  digest: string;
}

/** Writes the release and pushes its image to the local registry; throws if the pushed digest is not dist's. */
export async function publishRelease(log: (line: string) => void = () => {}): Promise<PublishedRelease> {
  const started = Date.now();
  const [release, { crane }] = await Promise.all([
    writeDist(join(tempDir('cascade-release-'), 'dist'), DEFAULT_IMAGE_REPOSITORY),
    ensureRegistryTools(),
  ]);
  const local = `${REGISTRY}/cascade/cascade`;
  const pushed = await pushImage(crane, join(release.out, DIST_FILES.image), local, 'release');
  if (pushed !== `${local}@${release.image.digest}`)
    throw new Error(`release: pushed ${pushed}, but dist wrote ${release.image.digest}`);
  log(`release: written and pushed to ${pushed} in ${Date.now() - started} ms`);
  return {
    install: join(release.out, DIST_FILES.install),
    crds: join(release.out, DIST_FILES.crds),
    repository: { release: release.image.repository, local },
    digest: release.image.digest,
  };
}
