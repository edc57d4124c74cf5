// `npm run dist [-- --out DIR] [--image-repo REPO]`: the release, in DIR
// (dist/ unless told), made anew from a clean copy of the repository:
//   image/            the function's image (the janitor's too), an OCI image
//                     layout directory (local/node/function-image.ts)
//   install.yaml      knative/ without the CRDs, the image by digest
//   crds.yaml         crds/ alone (scripts/dist/manifests.ts)
//   sbom.cdx.json     the image's SBOM, CycloneDX (scripts/dist/sbom.ts)
//   cascade-<version>.tgz  the CLI, an npm package: `npm install -g` of it
//                     puts kubectl-cascade on the PATH
//   release.json      what is where: the image's reference and digest, the files
// REPO is where the image is to be pushed: install.yaml names REPO@<digest>
// (ghcr.io/cascade/cascade unless told). Two runs on one commit write the
// same image, byte for byte (docs/deploy/image.md says how).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from '../local/cluster/binaries.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { buildFunctionImage, DEFAULT_IMAGE_REPOSITORY, type FunctionImage } from '../local/node/function-image.ts';
import { FUNCTION_LAYERS } from '../local/node/images.ts';
import { tempDir } from '../local/temp-dir.ts';
import { renderManifests, stream } from './dist/manifests.ts';
import { bomErrors, debianPackages, imageBom, npmBom } from './dist/sbom.ts';

const log = (line: string) => process.stderr.write(`dist: ${line}\n`);

/** The files of a release, by what they hold. */
export const DIST_FILES = {
  image: 'image',
  install: 'install.yaml',
  crds: 'crds.yaml',
  sbom: 'sbom.cdx.json',
  release: 'release.json',
} as const;

async function writeManifests(out: string, kubectl: string, image: FunctionImage, repository: string): Promise<void> {
  const { install, crds } = await renderManifests({
    kubectl,
    root: image.stages.src,
    work: tempDir('cascade-dist-overlay-'),
    repository,
    digest: image.digest,
  });
  const { tag, hash } = image.stages.info;
  const release = `Cascade ${tag} (${hash}), written by npm run dist.`;
  writeFileSync(
    join(out, DIST_FILES.install),
    stream(
      [
        release,
        `Everything of knative/ but the CRDs, which crds.yaml holds: apply that first.`,
        `Image: ${repository}@${image.digest}`,
      ],
      install,
    ),
  );
  writeFileSync(
    join(out, DIST_FILES.crds),
    stream([release, 'The CustomResourceDefinitions alone: deleting install.yaml leaves them, and the runs.'], crds),
  );
  log(`install.yaml: ${install.length} objects; crds.yaml: ${crds.length} CRDs`);
}

async function writeSbom(out: string, image: FunctionImage, repository: string): Promise<number> {
  const bom = imageBom(await npmBom(image.stages.workdir), {
    repository,
    digest: image.digest,
    node: { version: image.node.version, sha256: image.node.sha256, path: '/usr/local/bin/node' },
    debian: debianPackages(image.libraries),
  });
  const errors = await bomErrors(bom);
  if (errors.length > 0)
    throw new Error(`the SBOM is not valid CycloneDX 1.6: ${JSON.stringify(errors).slice(0, 2000)}`);
  writeFileSync(join(out, DIST_FILES.sbom), `${JSON.stringify(bom, null, 2)}\n`);
  log(`sbom.cdx.json: CycloneDX ${bom.specVersion as string}, ${bom.components.length} components`);
  return bom.components.length;
}

/** The CLI's package, packed from the built clean copy (`npm pack`'s prepack has run: build, then build:ui). */
async function packCli(out: string, image: FunctionImage): Promise<string> {
  const npm = (...args: string[]) => runCommand('npm', args, { cwd: image.stages.src });
  await npm('run', 'build:ui');
  const [packed] = JSON.parse(await npm('pack', '--ignore-scripts', '--json', '--pack-destination', out)) as {
    filename: string;
  }[];
  log(`${packed!.filename}: the CLI, for npm install -g`);
  return packed!.filename;
}

export interface Release {
  /** The directory the release was written to. */
  out: string;
  /** Where install.yaml expects the image, and its digest. */
  image: { repository: string; digest: string };
}

/** Writes the release into `out` (emptied first), the image to be pushed to `repository`. */
export async function writeDist(out: string, repository: string): Promise<Release> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const kubectl = ensureBinaries().then((dir) => join(dir, 'kubectl'));
  kubectl.catch(() => {});
  const image = await buildFunctionImage({ layout: join(out, DIST_FILES.image), repository, log });
  try {
    log(
      `image/: ${image.reference} ${image.digest}, ${(image.size / 1e6).toFixed(1)} MB in ${FUNCTION_LAYERS.length} layers`,
    );
    await writeManifests(out, await kubectl, image, repository);
    const components = await writeSbom(out, image, repository);
    const cli = await packCli(out, image);
    const release = {
      image: {
        repository,
        digest: image.digest,
        reference: image.reference,
        size: image.size,
        layout: DIST_FILES.image,
      },
      build: image.stages.info,
      node: { version: image.node.version, sha256: image.node.sha256 },
      files: { install: DIST_FILES.install, crds: DIST_FILES.crds, sbom: DIST_FILES.sbom, cli },
      sbomComponents: components,
    };
    writeFileSync(join(out, DIST_FILES.release), `${JSON.stringify(release, null, 2)}\n`);
    log(`${out}: written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return { out, image: { repository, digest: image.digest } };
  } finally {
    image.cleanup();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'dist' },
      'image-repo': { type: 'string', default: DEFAULT_IMAGE_REPOSITORY },
    },
  });
  await writeDist(resolve(values.out), values['image-repo']);
}

if (import.meta.main) await main();
