// The function's image on the real node: the Containerfile's run stage
// (image-stages.ts) with Node.js and the libraries it links, written as an OCI
// archive with no daemon (local/node/image-build.ts) and imported into the
// node's containerd as `cascade.local/cascade:dev`.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../cluster/paths.ts';
import { buildImage as writeImage } from './image-build.ts';
import { functionImage } from './images.ts';
import { importIntoRealNode } from './node.ts';
import { tempDir } from '../temp-dir.ts';
import { ofKind, parseContainerfile } from '../../scripts/containerfile.ts';
import { buildImage, cleanContext } from './image-stages.ts';

/** Builds the stages, writes and imports the image; resolves to a function that removes the stages' directories. */
export async function importFunctionImage(): Promise<() => void> {
  const containerfile = parseContainerfile(readFileSync(join(repoRoot, 'Containerfile'), 'utf8'));
  const runStage = containerfile.stages.at(-1)!;
  const context = cleanContext();
  const dirs = [context];
  const cleanup = () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const stages = await buildImage(containerfile, context);
    dirs.push(...stages.dirs);
    const archive = join(tempDir('cascade-function-image-'), 'function.tar');
    const started = Date.now();
    await writeImage(
      functionImage({
        app: stages.workdir,
        node: process.execPath,
        user: `${stages.uid}:${stages.gid}`,
        env: Object.assign({}, ...ofKind(runStage, 'ENV').map((e) => e.vars)) as Record<string, string>,
        cmd: stages.cmd,
        workingDir: ofKind(runStage, 'WORKDIR').at(-1)!.path,
      }),
      archive,
    );
    await importIntoRealNode(archive);
    process.stderr.write(`function image: written and imported in ${Date.now() - started} ms\n`);
    rmSync(archive);
  } catch (error) {
    cleanup();
    throw error;
  }
  return cleanup;
}
