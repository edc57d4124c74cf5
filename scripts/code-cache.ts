// V8's code cache of the function's bundle, as `npm run build` writes it
// (scripts/bundle.ts): a warm-up (warm-code-cache.ts), then the cache written
// anew (rewrite-code-cache.ts). Both run under the image's node flags, so V8
// takes the cache in the image, plus --predictable, a flag V8 leaves out of
// the flags a cache must match. The same commit gives the same cache, byte
// for byte, however loaded the machine (test/production-build.test.ts).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { imageNodeFlags } from './image-flags.ts';

/** Writes the code cache of the bundle in `dir` (a build/functions/cascade), with the node flags of `root`'s package.json. */
export function writeCodeCache(dir: string, root = '.', env: NodeJS.ProcessEnv = process.env): void {
  const flags = [...imageNodeFlags(root), '--predictable'];
  for (const step of ['warm-code-cache.ts', 'rewrite-code-cache.ts'])
    execFileSync(process.execPath, [...flags, join(import.meta.dirname, step), dir], { stdio: 'inherit', env });
}
