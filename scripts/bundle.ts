// The last step of `npm run build`: the deployable function as a bundle with
// V8's code cache beside it, in build/functions/cascade/:
// - function.cjs (and the engine's chunk, app-<hash>.cjs, loaded on the first
//   request or readiness probe as index.ts loads app.ts): serve.ts, the
//   function and faas-js-runtime with fastify, tree-shaken by rolldown into
//   CommonJS (the runtime's modules are sloppy-mode CommonJS, which an ES
//   module bundle would make strict);
// - server.cjs, the command's entry: turns on Node's module compile cache,
//   read from compile-cache/ beside it, then loads function.cjs and serves;
// - compile-cache/: that cache, made here by loading the bundle's files
//   once. Node keys it by Node.js version, V8 flags and user id, and (portable)
//   by paths relative to it, so it holds wherever build/ is copied to. When run
//   as root (an image build) it is given to the image's user too. At run time
//   nothing is written: the directory is the build's, and a process for which
//   it holds no cache (another user, other flags) compiles as without it.
// The bundle is plain ASCII (non-ASCII escaped, comments left out: the
// licences ship with node_modules/ in the image): V8 keeps each script's source
// for as long as the process runs, one byte a character if all of it is
// Latin-1, else two (iconv-lite's tables made the 2 MB of function.cjs 4 MB
// of heap).
// The compiled modules beside them (index.js for faas-js-runtime's CLI,
// janitor/main.js) stay as tsc wrote them.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

const OUT = resolve('build/functions/cascade');
const CACHE = join(OUT, 'compile-cache');
/** The image's user (Containerfile: USER 1000:1000). */
const IMAGE_UID = 1000;

const LAUNCHER = `'use strict';
// The Cascade function's process (written by scripts/bundle.ts): Node's
// compile cache from the build, then faas-js-runtime serving the function.
const { join } = require('node:path');
require('node:module').enableCompileCache({ directory: join(__dirname, 'compile-cache'), portable: true });
require('./function.cjs').serve();
`;

async function bundle(): Promise<void> {
  for (const f of readdirSync(OUT)) if (f.endsWith('.cjs') || f.endsWith('.cjs.map')) rmSync(join(OUT, f));
  await build({
    input: { function: 'functions/cascade/serve.ts' },
    platform: 'node',
    logLevel: 'warn',
    output: { dir: OUT, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs', sourcemap: true, charset: 'ascii', comments: false },
  });
  writeFileSync(join(OUT, 'server.cjs'), LAUNCHER);
}

/** Loads every file of the bundle once with the compile cache on: the cache of what they compile. */
function fillCache(): void {
  const files = readdirSync(OUT).filter((f) => f.endsWith('.cjs') && f !== 'server.cjs').map((f) => join(OUT, f));
  const code = `const m = require('node:module');
const r = m.enableCompileCache({ directory: ${JSON.stringify(CACHE)}, portable: true });
if (r.status !== m.constants.compileCacheStatus.ENABLED) throw new Error('compile cache: ' + (r.message ?? r.status));
for (const f of ${JSON.stringify(files)}) require(f);
m.flushCompileCache();
process.exit(0);`;
  execFileSync(process.execPath, ['-e', code], { stdio: 'inherit', env: { ...process.env, LOG_LEVEL: 'silent' } });
}

/**
 * Node keeps the cache in a directory named after the Node.js version, the
 * V8 flags and the user id (`v24.21.0-x64-964aae3f-0`); its files do not
 * depend on the user. As root, the cache made is given to the image's user
 * too (a copy under its id), so that the image's process finds it.
 */
function shareWith(uid: number): void {
  const own = `-${process.getuid!()}`;
  for (const dir of readdirSync(CACHE)) {
    if (dir.endsWith(own)) cpSync(join(CACHE, dir), join(CACHE, `${dir.slice(0, -own.length)}-${uid}`), { recursive: true });
  }
}

/** The build's files, as the rest of build/: readable by all (Node writes the cache 0600). */
function readable(dir: string): void {
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) chmodSync(join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
}

await bundle();
rmSync(CACHE, { recursive: true, force: true });
mkdirSync(CACHE);
fillCache();
if (process.getuid?.() === 0) shareWith(IMAGE_UID);
readable(CACHE);
console.log(`build/functions/cascade: function bundle, server.cjs and its compile cache (${readdirSync(CACHE).join(', ')})`);
