// The function's image, built one way for every use: `npm run dist` ships it
// as an OCI image layout, which `npm start` pushes to the local registry
// (local/knative/release.ts), and some tests import the same image into the
// real node's containerd as `cascade.local/cascade:dev`. The stages
// (image-stages.ts) make /app, the Node.js binary is the pinned one of the npm
// package `node` (node-binary.ts), with the libraries it links, and
// image-build.ts writes the layers with no daemon (images.ts lays them out).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { archiveLayout, renameLayout, writeLayout } from './image-build.ts';
import { buildStages, cleanContext, type Image } from './image-stages.ts';
import { FUNCTION_IMAGE, functionImage, linkedLibraries } from './images.ts';
import { nodeBinary, type NodeBinary } from './node-binary.ts';
import { importIntoRealNode } from './node.ts';
import { tempDir } from '../temp-dir.ts';

/** Where the release's image is pushed unless told otherwise (knative/ names it). */
export const DEFAULT_IMAGE_REPOSITORY = 'ghcr.io/cascade/cascade';

export interface FunctionImage {
  /** The manifest's digest, `sha256:...`: the image's name in a registry. */
  digest: string;
  /** The bytes a registry stores: manifest, config and gzip-compressed layers. */
  size: number;
  /** `repository:tag`, as the layout's index.json names it. */
  reference: string;
  stages: Image;
  node: NodeBinary;
  libraries: string[];
  /** Removes the stages' directories. */
  cleanup(): void;
}

/** A tag from git's description of the commit: the characters a tag may hold. */
const tagOf = (description: string) => description.replace(/[^\w.-]/g, '-').slice(0, 128);

/** Builds the function's image into the OCI image layout directory `layout`. */
export async function buildFunctionImage(options: {
  layout: string;
  repository?: string;
  log?: (line: string) => void;
}): Promise<FunctionImage> {
  const context = cleanContext();
  let stages: Image | undefined;
  const cleanup = () => {
    for (const dir of stages?.dirs ?? [context]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    stages = await buildStages(context, options.log);
    const node = nodeBinary(stages.src);
    const libraries = linkedLibraries(node.path);
    const reference = `${options.repository ?? DEFAULT_IMAGE_REPOSITORY}:${tagOf(stages.info.tag)}`;
    const { manifest, size } = await writeLayout(
      functionImage({
        reference,
        app: stages.workdir,
        node: node.path,
        libraries,
        cmd: stages.cmd,
        created: stages.info.date,
        annotations: {
          'org.opencontainers.image.title': 'cascade',
          'org.opencontainers.image.licenses': 'Apache-2.0',
          'org.opencontainers.image.version': stages.info.tag,
          'org.opencontainers.image.revision': stages.info.hash,
          'org.opencontainers.image.created': stages.info.date,
        },
      }),
      options.layout,
    );
    return { digest: manifest.digest, size, reference, stages, node, libraries, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * Builds the image (as `npm run dist` does) and imports it into the real node
 * as FUNCTION_IMAGE; resolves to a function that removes what is left of it.
 */
export async function importFunctionImage(): Promise<() => void> {
  const dir = tempDir('cascade-function-image-');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const started = Date.now();
    const layout = join(dir, 'layout');
    const image = await buildFunctionImage({ layout });
    image.cleanup();
    const built = Date.now();
    // only index.json changes: the image, and so its digest, are the release's
    renameLayout(layout, FUNCTION_IMAGE);
    const archive = join(dir, 'function.tar');
    await archiveLayout(layout, archive);
    await importIntoRealNode(archive);
    process.stderr.write(
      `function image: ${image.digest} built in ${built - started} ms, imported in ${Date.now() - built} ms\n`,
    );
    remove();
  } catch (error) {
    remove();
    throw error;
  }
  return remove;
}
