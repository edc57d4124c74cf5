#!/usr/bin/env node
// The entry the `kubectl-cascade` bin, a shell script, runs on the PATH's
// Node.js when no checkout's Node.js 24 is at hand. Plain JavaScript, because
// Node.js strips no TypeScript types under node_modules.
// - In a checkout, it runs the sources, cli/main.ts. That holds also for a
//   checkout linked by `npm i -g <checkout>` or run by `npx <checkout>`: the
//   real path is the checkout's. It runs them on this Node.js when it strips
//   types, else on the Node.js 24 of node_modules/.bin/node.
// - Installed from a package (a copy under node_modules), it runs the
//   compiled build/cli/main.js, which `npm run build` writes (`npm pack` runs
//   it: prepack).
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import module from 'node:module';
import { constants, tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(realpathSync(fileURLToPath(import.meta.url)));
const source = join(here, 'main.ts');
const compiled = join(here, '..', 'build', 'cli', 'main.js');
const checkoutNode = join(here, '..', 'node_modules', '.bin', 'node');
const inCheckout = !here.split(sep).includes('node_modules') && existsSync(source);

// V8's code cache of every module loaded, kept between runs (Node.js's module
// compile cache, in $NODE_COMPILE_CACHE, else the temporary folder): a
// command then starts in about a third of the time. Node.js 20 has none.
const compileCache = process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache');
module.enableCompileCache?.(compileCache);

if (inCheckout && process.features.typescript) {
  await import(pathToFileURL(source).href);
} else if (inCheckout && existsSync(checkoutNode)) {
  const child = spawn(checkoutNode, [source, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_COMPILE_CACHE: compileCache },
  });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);
  // A child ended by a signal ends this process by the same signal: the
  // handler above would catch it again, so it goes first. The exit status
  // shells give a signal, 128 + its number, stands in if it is caught still.
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    process.off(signal, forward);
    process.kill(process.pid, signal);
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
} else if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(`kubectl-cascade: ${compiled} is missing: run \`npm run build\` in ${join(here, '..')}\n`);
  process.exit(1);
}
