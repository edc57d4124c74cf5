// server.cjs, the deployable's entry, as scripts/bundle.ts writes it beside
// function.cjs: compiles the bundle with V8's code cache (CACHE_FILE) and
// serves it. The bench writes the same entry beside a bundle of its own
// (bench/cold-floor.ts).
export const CACHE_FILE = 'function.code-cache';

/** The script's name in the code cache the build writes: one name wherever the build runs. */
export const CACHE_SCRIPT_NAME = 'build/functions/cascade/function.cjs';

/** What server.cjs exports, as the build's scripts require it. */
export interface Launcher {
  CACHE_FILE: string;
  compile(name?: string): { cacheTaken: boolean; script: { createCachedData(): Buffer } };
  load(name?: string): { cacheTaken: boolean; exports: { serve(): void }; script: { createCachedData(): Buffer } };
}

export const LAUNCHER = `'use strict';
// The Cascade function's process (written by scripts/bundle.ts): function.cjs
// compiled with the build's V8 code cache, then faas-js-runtime serving it.
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const CACHE_FILE = '${CACHE_FILE}';

function cache() {
  try {
    return readFileSync(join(__dirname, CACHE_FILE));
  } catch {
    return undefined;
  }
}

/**
 * function.cjs compiled, with the code cache when V8 takes it, and not run.
 * \`name\` is the script's name, its path unless given: a code cache holds
 * that name.
 */
function compile(name) {
  const file = join(__dirname, 'function.cjs');
  const cachedData = cache();
  const source = '(function (exports, require, module, __filename, __dirname) {' + readFileSync(file, 'latin1') + '\\n})';
  const script = new Script(source, { filename: name || file, cachedData });
  return { file, script, cacheTaken: cachedData !== undefined && !script.cachedDataRejected };
}

/** function.cjs compiled (compile()) and run as a CommonJS module. */
function load(name) {
  const { file, script, cacheTaken } = compile(name);
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(file), mod, file, __dirname);
  return { exports: mod.exports, script, cacheTaken };
}

module.exports = { CACHE_FILE, compile, load };
if (require.main === module) load().exports.serve();
`;
