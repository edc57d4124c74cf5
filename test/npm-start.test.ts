// `npm start` as a newcomer runs it: no KUBECONFIG, a new state dir, so it
// starts a control plane of its own, the real node, Knative Serving and
// Eventing, and deploys knative/ on them. Then the banner's commands: the run
// request through the real Broker, the modules' pod logs followed with the
// CLI, the run Succeeded. Ctrl-C leaves nothing running, mounted or listening.
// And a start that fails halfway: one plain line, exit 1, and nothing left.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, statePaths } from '../local/cluster/paths.ts';
import { readPids } from '../local/cluster/processes.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { realNodePaths } from '../local/node/node.ts';
import { tempDir } from '../local/temp-dir.ts';
import { waitFor } from './support/kube.ts';
import { alive, demoRunPhase, newcomerEnv, npmAsNewcomer, type Started } from './support/newcomer.ts';

const run = promisify(execFile);

/** `npm start` in the environment of a new shell, on a cluster state dir of its own. */
function npmStart(stateDir: string, extra: Record<string, string> = {}): Started {
  return npmAsNewcomer(['start'], newcomerEnv({ ...extra, CASCADE_CLUSTER_STATE: stateDir }));
}

/** Every pid recorded in the state dir: the control plane's processes and the real node's. */
function recordedPids(stateDir: string): number[] {
  return [...readPids(statePaths(stateDir).pids), ...readPids(realNodePaths(stateDir).pids)].map((p) => p.pid);
}

/** The run request of the README's tour, its continued lines joined. */
function readmeCurl(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const block = /```sh\n(curl -si -X POST [\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
  return block.replace(/ \\\n\s*/g, ' ');
}

let started: Started | undefined;
afterEach(() => {
  const pid = started?.child.pid;
  if (pid && alive(-pid)) process.kill(-pid, 'SIGINT');
  started = undefined;
});

/** The banner's line that starts with `start`, once it is printed. */
function bannerLine(s: Started, start: string): Promise<string> {
  const pattern = new RegExp(`^ {2}(${start}.*)$`, 'm');
  return waitFor(() => pattern.exec(s.output())?.[1], {
    timeoutMs: 2_400_000,
    intervalMs: 1000,
    message: `the banner of npm start; so far:\n${s.output()}`,
  });
}

describe('npm start, as a newcomer runs it', () => {
  it('deploys Cascade on real Knative, runs the banner’s run request to Succeeded with real module containers, and Ctrl-C leaves nothing', async () => {
    const stateDir = join(tempDir('cascade-newcomer-'), 'cluster');
    started = npmStart(stateDir);
    const s = started;
    const curl = await bannerLine(s, 'curl -si -X POST http://');
    // the README's command, as written, is the banner's
    expect(curl).toBe(readmeCurl());
    expect(curl).toContain(`http://127.0.0.1:${REAL_NODE.brokerIngress.hostPort}/cascade-operator/default `);
    const follow = await bannerLine(s, 'KUBECONFIG=\\S+ npx kubectl-cascade -n cascade-operator logs -f ');
    const pids = recordedPids(stateDir);
    expect(pids.length).toBeGreaterThan(0);

    const { stdout } = await run('sh', ['-c', curl]);
    expect(stdout).toMatch(/^HTTP\/1\.1 202/);
    // the modules' own output, from their pods on the real node, in step order
    const logs = await run('sh', ['-c', follow], { cwd: repoRoot, timeout: 180_000 });
    expect(logs.stdout).toMatch(
      /^\[grayscale\] module .*\n(.*\n)*\[binarization\] module .*\n(.*\n)*\[diff\] exit 0$/m,
    );
    expect(await demoRunPhase(stateDir)).toBe('Succeeded');

    process.kill(-s.child.pid!, 'SIGINT');
    // npm, in the group too, may end by the signal itself (null) or with start's 0
    expect([0, null]).toContain(await s.exited);
    await waitFor(() => !alive(-s.child.pid!) && pids.every((pid) => !alive(pid)), {
      timeoutMs: 120_000,
      message: `every process npm start started has ended: ${pids.join(', ')}`,
    });
    await waitFor(() => !existsSync(stateDir), { timeoutMs: 30_000, message: 'the state dir removed' });
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
    expect(mounts).not.toContain(stateDir);
  }, 3_000_000);

  it('a start that fails halfway says what failed in one line, exits 1, and leaves nothing running or mounted', async () => {
    const stateDir = join(tempDir('cascade-newcomer-'), 'cluster');
    // a version of Eventing the Go module proxy does not serve: its build fails once the node is up
    started = npmStart(stateDir, { CASCADE_KNATIVE_EVENTING_VERSION: 'v0.0.1' });
    const s = started;
    const pids = await waitFor(() => s.output().includes('installing Knative') && recordedPids(stateDir), {
      timeoutMs: 2_400_000,
      intervalMs: 500,
      message: `npm start installing Knative; so far:\n${s.output()}`,
    });
    expect(await s.exited).toBe(1);
    const failed = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('cascade: npm start failed'));
    expect(failed, s.output()).toEqual([
      expect.stringMatching(/^cascade: npm start failed: installing Knative and building the function image: .+/),
    ]);
    expect(s.output()).not.toMatch(/HTTP-Code|    at /);
    await waitFor(() => pids.every((pid) => !alive(pid)), {
      timeoutMs: 120_000,
      message: `every process npm start started has ended: ${pids.join(', ')}`,
    });
    await waitFor(() => !existsSync(stateDir), { timeoutMs: 30_000, message: 'the state dir removed' });
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(stateDir);
  }, 3_000_000);
});
