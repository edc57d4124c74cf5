// The floor under the cold phase's figure: faas-js-runtime serving a function
// that does nothing (bench/floor-function.ts), timed from spawn to its first
// answered request. It is bundled as the build bundles Cascade: rolldown, the
// same options, server.cjs from scripts/launcher.ts, and V8's code
// cache written after a warm-up under the image's node flags. What is left of
// a cold-start budget past it is what Cascade may spend: its engine, the API
// server's connection, and the API calls a run request waits for.
import { execFileSync, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'rolldown';
import { repoRoot } from '../local/cluster/paths.ts';
import { freePort, stopProcess } from '../local/stand-ins/function-process.ts';
import { tempDir } from '../local/temp-dir.ts';
import { bundleOptions } from '../scripts/bundle-options.ts';
import { imageNodeFlags } from '../scripts/image-flags.ts';
import { CACHE_FILE, LAUNCHER } from '../scripts/launcher.ts';
import { until } from './cold-start.ts';
import { spread } from './stats.ts';

export interface ColdFloor {
  /** spawn → first 2xx answer of the empty function under the bundled runtime, median of `tries`. */
  runtimeMs: number;
  /** The same for node:http answering at once (Node's own start). */
  nodeMs: number;
  tries: number;
}

const BODY = JSON.stringify({ turlinfo: 's3://floor/in.tgz', iuid: 'floor' });

/** Node.js alone: node:http answering 200 once the body is read (plain JavaScript: no type stripping to load). */
const NODE_HTTP = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200); s.end(); }); }).listen(Number(process.env.FUNC_PORT), '127.0.0.1');`;

/** Builds the floor bundle in a new directory and writes its code cache after a warm-up. */
async function floorBundle(): Promise<string> {
  // Removed by coldFloor once timed, and at the bench's exit if a step before that fails.
  const dir = tempDir('cascade-cold-floor-');
  await build(bundleOptions({ function: join(repoRoot, 'bench/floor-function.ts') }, dir));
  writeFileSync(join(dir, 'server.cjs'), LAUNCHER);
  const port = await freePort();
  // Loaded as server.cjs loads it, served, sent a request, then its code cache written (the build's warm-up, without Cascade's requests).
  const warm = `const l = require(${JSON.stringify(join(dir, 'server.cjs'))}); const m = l.load();
m.exports.serve().then(async () => {
  const r = await fetch('http://127.0.0.1:${port}/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(BODY)} });
  await r.arrayBuffer();
  if (r.status >= 300) throw new Error('the floor function answered ' + r.status);
  require('node:fs').writeFileSync(${JSON.stringify(join(dir, CACHE_FILE))}, m.script.createCachedData());
  process.exit(0);
});`;
  const run = (code: string) =>
    execFileSync(process.execPath, [...imageNodeFlags(repoRoot), '-e', code], {
      cwd: dir,
      env: { ...process.env, FUNC_PORT: String(port), NODE_ENV: 'production' },
      stdio: 'inherit',
    });
  run(warm);
  // A floor whose code cache V8 refuses would not be the build's: say so rather than time it.
  run(
    `if (!require(${JSON.stringify(join(dir, 'server.cjs'))}).load().cacheTaken) { console.error('the floor bundle\\'s code cache was refused'); process.exit(1); }`,
  );
  return dir;
}

/** spawn → the first 2xx answer to a POST, polling as the cold phase does (cold-start.ts). */
async function timeToAnswer(args: string[], cwd: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, FUNC_PORT: String(port), NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  try {
    return await until(async () => {
      const r = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: BODY,
      });
      await r.arrayBuffer();
      return r.status < 300 ? performance.now() - t0 : undefined;
    });
  } finally {
    await stopProcess(child, 'SIGKILL');
  }
}

export async function coldFloor(tries: number): Promise<ColdFloor> {
  const dir = await floorBundle();
  try {
    const flags = imageNodeFlags(repoRoot);
    const runtime: number[] = [];
    const node: number[] = [];
    for (let i = 0; i < tries; i++) {
      runtime.push(await timeToAnswer([...flags, join(dir, 'server.cjs')], dir));
      node.push(await timeToAnswer([...flags, '-e', NODE_HTTP], dir));
    }
    return { runtimeMs: spread(runtime)!.median, nodeMs: spread(node)!.median, tries };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
