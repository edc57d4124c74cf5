// The second of the two steps scripts/code-cache.ts runs, under the same node
// flags as the first (scripts/warm-code-cache.ts): it writes the warm-up's
// code cache anew, from a process that compiles the bundle with it and runs
// none of it. Two warm-ups that compiled the same functions can still write
// caches that differ in a few bytes (a loaded machine's and an idle one's did).
// Written anew, they are the same. A cache V8 refuses fails the build.
//   node --max-semi-space-size=4 --predictable scripts/rewrite-code-cache.ts build/functions/cascade
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { CACHE_SCRIPT_NAME, type Launcher } from './launcher.ts';

const out = resolve(process.argv[2] ?? 'build/functions/cascade');
const launcher = createRequire(import.meta.url)(join(out, 'server.cjs')) as Launcher;
const { cacheTaken, script } = launcher.compile(CACHE_SCRIPT_NAME);
if (!cacheTaken) {
  console.error(`rewrite-code-cache: V8 refused ${join(out, launcher.CACHE_FILE)}`);
  process.exit(1);
}
writeFileSync(join(out, launcher.CACHE_FILE), script.createCachedData());
