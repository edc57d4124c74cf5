// SIGTERM in every state of the function's engine, as the deployable runs it:
// the bundle scripts/bundle.ts builds (rolldown with the build's options,
// server.cjs from scripts/launcher.ts), with a stand-in in place of the
// engine (functions/cascade/app.ts). The stand-in is bundled by this test
// only; the product code is the build's. Each state ends the process within
// a bound, with one line that says why when the exit is not clean.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'rolldown';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { freePort } from '../local/stand-ins/function-process.ts';
import { tempDir } from '../local/temp-dir.ts';
import { bundleOptions } from '../scripts/bundle-options.ts';
import { LAUNCHER } from '../scripts/launcher.ts';

/** The engine's stand-in: how its load ends is chosen by CASCADE_TEST_ENGINE. */
const STAND_IN = `
export function createApp() {
  const how = process.env.CASCADE_TEST_ENGINE;
  if (how === 'loads') return { handle: async () => ({ statusCode: 200, body: {} }), draining: () => false, shutdown: async () => {} };
  if (how === 'fails-later') return new Promise((_, reject) => setTimeout(() => reject(new Error('the engine stand-in failed to load')), 1500));
  return new Promise(() => {});
}
`;

const standInEngine = (): Plugin => ({
  name: 'cascade-test-engine-stand-in',
  load: (id) => (id.endsWith('/functions/cascade/app.ts') ? STAND_IN : undefined),
});

const GRACE_SECONDS = 2;
let dir: string;
const children = new Set<ChildProcess>();
// A process a failed check left running is killed, not left behind.
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

beforeAll(async () => {
  dir = tempDir('cascade-sigterm-');
  const options = bundleOptions({ function: join(repoRoot, 'functions/cascade/serve.ts') }, dir);
  await build({ ...options, plugins: [standInEngine(), ...(options.plugins as Plugin[])] });
  writeFileSync(join(dir, 'server.cjs'), LAUNCHER);
}, 120_000);

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
}

/** The bundled function with the stand-in engine, once its liveness probe answers (the engine need not be loaded). */
async function start(engine: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(dir, 'server.cjs')], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      FUNC_PORT: String(port),
      CASCADE_METRICS_PORT: '0',
      CASCADE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      CASCADE_TEST_ENGINE: engine,
    },
  });
  children.add(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<Awaited<Started['exited']>>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited before it listened:\n${out}`);
    if (Date.now() > deadline) throw new Error(`not live in 20 s:\n${out}`);
    const live = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => out, exited };
}

function fatalLines(output: string): Array<{ msg: string }> {
  return output
    .split('\n')
    .filter((line) => line.includes('"level":60'))
    .map((line) => JSON.parse(line) as { msg: string });
}

describe('SIGTERM in every state of the engine (the bundled function)', () => {
  it('the engine loaded: it drains and exits 0 at once', { timeout: 60_000 }, async () => {
    const fn = await start('loads');
    const sent = Date.now();
    fn.child.kill('SIGTERM');
    const end = await fn.exited;
    expect(end.code).toBe(0);
    expect(end.at - sent).toBeLessThan(2_000);
    expect(fatalLines(fn.output())).toEqual([]);
  });

  it(
    'the engine still loading and never done: exit 1 once the grace period is over, one fatal line',
    { timeout: 60_000 },
    async () => {
      const fn = await start('hangs');
      const sent = Date.now();
      fn.child.kill('SIGTERM');
      const end = await fn.exited;
      expect(end.code).toBe(1);
      expect(end.at - sent).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 50);
      expect(end.at - sent).toBeLessThan(GRACE_SECONDS * 1000 + 2_000);
      expect(fatalLines(fn.output())).toEqual([
        expect.objectContaining({ msg: 'shutdown: the engine did not load within the grace period: exiting 1' }),
      ]);
    },
  );

  it(
    'the engine failing to load while the drain waits: exit 1 when the load fails, one fatal line',
    { timeout: 60_000 },
    async () => {
      const fn = await start('fails-later');
      const sent = Date.now();
      fn.child.kill('SIGTERM');
      const end = await fn.exited;
      expect(end.code).toBe(1);
      expect(end.at - sent).toBeLessThan(GRACE_SECONDS * 1000);
      const fatal = fatalLines(fn.output());
      expect(fatal).toHaveLength(1);
      expect(fatal[0]!.msg).toMatch(/exiting 1$/);
      expect(fn.output()).toContain('the engine stand-in failed to load');
    },
  );

  it('the engine failed to load with no signal: exit 1 by itself, one fatal line', { timeout: 60_000 }, async () => {
    const fn = await start('fails-later');
    const end = await fn.exited;
    expect(end.code).toBe(1);
    expect(fatalLines(fn.output())).toEqual([
      expect.objectContaining({ msg: 'the function could not start: exiting 1' }),
    ]);
  });
});
