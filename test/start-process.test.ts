// `npm run start:process` as a newcomer runs it: no KUBECONFIG, a new state dir, so it
// starts a control plane of its own; then the banner's run request through
// the Broker, the run Succeeded, Ctrl-C, and nothing left running or
// listening. And a start that fails halfway: one plain line, exit 1, and
// nothing left either.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { statePaths } from '../local/cluster/paths.ts';
import { readPids } from '../local/cluster/processes.ts';
import { freePort } from '../local/stand-ins/function-process.ts';
import { tempDir } from '../local/temp-dir.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';
import { alive, demoRunPhase, npmAsNewcomer, newcomerEnv, type Started } from './support/newcomer.ts';

const run = promisify(execFile);

/** `npm run start:process` as a newcomer runs it. */
const npmRunStartProcess = (env: Record<string, string>) => npmAsNewcomer(['run', 'start:process'], env);

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

const groupAlive = (pgid: number) => alive(-pgid);

let started: Started | undefined;
const busy: Server[] = [];
afterEach(async () => {
  if (started?.child.pid && groupAlive(started.child.pid)) process.kill(-started.child.pid, 'SIGKILL');
  started = undefined;
  for (const s of busy.splice(0)) s.close();
});

async function ports() {
  return { port: await freePort(), broker: await freePort(), metrics: await freePort() };
}

describe('npm run start:process, as a newcomer runs it', () => {
  it('starts its own control plane, runs the banner’s run request to Succeeded, and Ctrl-C leaves nothing running', async () => {
    const stateDir = join(tempDir('cascade-newcomer-'), 'cluster');
    const p = await ports();
    started = npmRunStartProcess(
      newcomerEnv({
        CASCADE_CLUSTER_STATE: stateDir,
        PORT: String(p.port),
        BROKER_PORT: String(p.broker),
        CASCADE_METRICS_PORT: String(p.metrics),
      }),
    );
    const s = started;
    // the banner's first command: the run request through the Broker
    const curl = await waitFor(() => s.output().match(/^ {2}(curl -si -X POST localhost:\d+\/\S+ .*)$/m)?.[1], {
      timeoutMs: 900_000,
      intervalMs: 500,
      message: `the banner of npm run start:process; so far:\n${s.output()}`,
    });
    expect(curl).toContain(`localhost:${p.broker}/cascade-operator/default`);
    const fnPort = Number(s.output().match(/function on http:\/\/localhost:(\d+)/)?.[1]);
    const { stdout } = await run('sh', ['-c', curl]);
    expect(stdout).toMatch(/^HTTP\/1\.1 202/);
    const phase = await waitFor(
      async () => {
        const now = await demoRunPhase(stateDir);
        return ['Succeeded', 'Failed'].includes(now ?? '') && now;
      },
      { timeoutMs: 60_000, message: 'the demo run ended' },
    );
    expect(phase).toBe('Succeeded');
    const pids = readPids(statePaths(stateDir).pids).map((p) => p.pid);
    expect(pids.length).toBeGreaterThan(0);
    process.kill(-s.child.pid!, 'SIGINT');
    // npm, in the group too, may end by the signal itself (null) or with start's 0
    expect([0, null]).toContain(await s.exited);
    await waitFor(() => !groupAlive(s.child.pid!) && pids.every((pid) => !alive(pid)), {
      timeoutMs: 30_000,
      message: `every process npm run start:process started has ended: ${pids.join(', ')}`,
    });
    for (const port of [p.port, p.broker, p.metrics, fnPort, 8022, 9090])
      expect(await portFree(port), `port ${port}`).toBe(true);
    expect(existsSync(stateDir)).toBe(false);
  }, 1_200_000);

  it('a start that fails halfway says what failed in one line, exits 1, and leaves nothing running or listening', async () => {
    const p = await ports();
    // the Broker's port is taken: the function and queue-proxy are up by then
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(p.broker, r));
    busy.push(taken);
    started = npmRunStartProcess(
      newcomerEnv({
        KUBECONFIG: adminKubeconfigPath(),
        POD_NAMESPACE: 'cascade-start-failure',
        PORT: String(p.port),
        BROKER_PORT: String(p.broker),
        CASCADE_METRICS_PORT: String(p.metrics),
      }),
    );
    const s = started;
    expect(await s.exited).toBe(1);
    const failed = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('cascade: npm run start:process failed'));
    expect(failed, s.output()).toEqual([
      expect.stringMatching(/^cascade: npm run start:process failed: starting the Broker stand-in.*EADDRINUSE/),
    ]);
    expect(s.output()).not.toMatch(/HTTP-Code|    at /);
    await waitFor(() => !groupAlive(s.child.pid!), {
      timeoutMs: 30_000,
      message: 'no process of npm run start:process left',
    });
    for (const port of [p.port, p.metrics, 8022, 9090]) expect(await portFree(port), `port ${port}`).toBe(true);
  }, 600_000);
});
