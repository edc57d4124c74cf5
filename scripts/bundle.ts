// The last step of `npm run build`: the deployable function as one bundle
// with V8's code cache beside it, in build/functions/cascade/:
// - function.cjs holds serve.ts, the function and faas-js-runtime with
//   fastify, tree-shaken by rolldown into one CommonJS file. The engine and
//   the CloudEvents SDK are compiled with the rest, though index.ts evaluates
//   them later: the engine from the runtime's init(), before the server is
//   created, and the SDK on the first run-end event. The bundle is CommonJS
//   because the runtime's modules are sloppy-mode CommonJS, which an ES module
//   bundle would make strict. rolldown's options are in bundle-options.ts.
//   It must not import(): server.cjs runs it as a vm.Script, which has no
//   module loader for that.
// - server.cjs, the command's entry: compiles function.cjs with the code
//   cache (function.code-cache), runs it as a CommonJS module, and serves;
// - function.code-cache: V8's code cache of function.cjs, written by
//   scripts/code-cache.ts after a warm-up (the runtime's start and a
//   first request of each kind). So it holds the bytecode of the functions a
//   cold process runs first, not only of those compiled when the bundle loads,
//   which is all Node's module compile cache keeps. Two builds of one commit
//   write the same bytes. V8 takes it only in a process with the same V8
//   version and flags: the image command's flags, from `start:function`.
//   Otherwise V8 compiles as without it. The cache does not depend on the
//   user or the path. At run time nothing is written.
// The bundle is plain ASCII: non-ASCII is escaped, and comments are left out
// (the licences ship with node_modules/ in the image). V8 keeps each script's
// source for as long as the process runs, one byte a character if all of it
// is Latin-1, else two. One character past Latin-1, as in iconv-lite's
// tables, would make the 2 MB of function.cjs 4 MB of heap.
// The compiled modules beside them (index.js for faas-js-runtime's CLI,
// janitor/main.js) stay as tsc wrote them.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';
import { bundleOptions } from './bundle-options.ts';
import { writeCodeCache } from './code-cache.ts';
import { CACHE_FILE, LAUNCHER } from './launcher.ts';
import { imageNodeFlags } from './image-flags.ts';

const OUT = resolve('build/functions/cascade');

async function bundle(): Promise<void> {
  for (const f of readdirSync(OUT))
    if (f.endsWith('.cjs') || f.endsWith('.cjs.map') || f === CACHE_FILE) rmSync(join(OUT, f));
  rmSync(join(OUT, 'compile-cache'), { recursive: true, force: true });
  await build(bundleOptions({ function: 'functions/cascade/serve.ts' }, OUT));
  const files = readdirSync(OUT).filter((f) => f.endsWith('.cjs'));
  if (files.join() !== 'function.cjs') throw new Error(`bundle: expected function.cjs alone, got ${files.join(', ')}`);
  if (/\bimport\(/.test(readFileSync(join(OUT, 'function.cjs'), 'latin1')))
    throw new Error('bundle: function.cjs calls import(), which server.cjs cannot serve');
  writeFileSync(join(OUT, 'server.cjs'), LAUNCHER);
}

await bundle();
writeCodeCache(OUT);
const flags = imageNodeFlags();
console.log(
  `build/functions/cascade: function.cjs, server.cjs and ${CACHE_FILE} (${Math.round(statSync(join(OUT, CACHE_FILE)).size / 1024)} KiB, node ${flags.join(' ')})`,
);
