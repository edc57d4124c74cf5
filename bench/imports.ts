// The function's import time by module: each import alone in a fresh Node
// process (so nothing is cached), timed around `await import()`; and Node's
// own start-up, for comparison.
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import { spread } from './stats.ts';

export const IMPORTED = [
  'faas-js-runtime',
  '@kubernetes/client-node',
  'pino',
  'prom-client',
  'valibot',
  'cloudevents',
  'p-retry',
  'functions/cascade/index.ts',
  'functions/cascade/app.ts',
];

function specifier(name: string): string {
  return name.endsWith('.ts') ? pathToFileURL(join(repoRoot, name)).href : name;
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'silent' } },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

async function importMs(name: string): Promise<number> {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier(name))}); process.stdout.write(String(performance.now() - t)); process.exit(0);`;
  return Number(await run(['--input-type=module', '-e', code]));
}

async function nodeStartMs(): Promise<number> {
  const t0 = performance.now();
  await run(['-e', '0']);
  return performance.now() - t0;
}

/** Median over `tries` fresh processes of each import's time (ms), and of `node -e 0`'s wall time. */
export async function importTimes(tries: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const starts: number[] = [];
  for (let i = 0; i < tries; i++) starts.push(await nodeStartMs());
  out['node -e 0 (wall)'] = spread(starts)!.median;
  for (const name of IMPORTED) {
    const times: number[] = [];
    for (let i = 0; i < tries; i++) times.push(await importMs(name));
    out[name] = spread(times)!.median;
  }
  return out;
}
