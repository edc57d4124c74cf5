// What the start tests share: an npm script run as a newcomer runs it, in its
// own process group with the environment of a new shell, and the demo run's
// phase on the cluster it made.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { repoRoot } from '../../local/cluster/paths.ts';
import { kubeConfigFromFile } from '../../local/kube.ts';

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The environment of a new shell: the test cluster's variables gone, `extra` added. */
export function newcomerEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(KUBECONFIG|CASCADE_KUBECONFIG|CASCADE_CLUSTER_STATE)$/.test(k)) env[k] = v;
  }
  return { ...env, ...extra };
}

/** `npm <args>` in its own process group, as a shell runs a job: Ctrl-C reaches the group. */
export function npmAsNewcomer(args: string[], env: Record<string, string>): Started {
  const child = spawn('npm', args, { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

/** Whether process `pid` (a group when negative) is there. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The phase of the demo run, cascadeautooperator-ip-33e65, on the cluster of `stateDir`. */
export async function demoRunPhase(stateDir: string): Promise<string | undefined> {
  const custom = kubeConfigFromFile(join(stateDir, 'admin.kubeconfig')).makeApiClient(CustomObjectsApi);
  const run = (await custom.getNamespacedCustomObject({
    group: 'cascade.cascade.net',
    version: 'v1alpha1',
    namespace: 'cascade-operator',
    plural: 'cascaderuns',
    name: 'cascadeautooperator-ip-33e65',
  })) as { status?: { phase?: string } };
  return run.status?.phase;
}
