// One component of a running local control plane, stopped and started again
// with the same command line (same ports, certificates and etcd data), for
// tests of faults: the API server going away and coming back, etcd stopped and
// started. Works on any cluster whose state dir startCluster wrote, from any
// process; the restarted component is recorded in pids.json in place of the
// old one, so `cluster:down`, the exit hook and the watchdog end it too.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pkiIn } from './certs.ts';
import { readClusterInfo } from './cluster-state.ts';
import type { CommandContext } from './component-commands.ts';
import { componentHealthy, launchComponent, type ComponentName } from './launch.ts';
import { defaultBinDir, stagesDir, statePaths, type StatePaths } from './paths.ts';
import { pollUntil } from './poll.ts';
import { isAlive, readPids, stopProcesses } from './processes.ts';

export type { ComponentName } from './launch.ts';

/** Kubeconfig files of the components that talk to the API server. */
export function componentKubeconfigs(paths: StatePaths): CommandContext['kubeconfigs'] {
  const file = (name: string) => join(paths.kubeconfigs, `${name}.kubeconfig`);
  return { controllerManager: file('kube-controller-manager'), scheduler: file('kube-scheduler'), kwok: file('kwok') };
}

export async function stageFiles(): Promise<string[]> {
  const names = (await readdir(stagesDir)).filter((n) => n.endsWith('.yaml')).sort();
  return names.map((n) => join(stagesDir, n));
}

/** What the components' command lines are made from, read back from a cluster's state dir. */
export async function commandContext(stateDir: string): Promise<{ context: CommandContext; paths: StatePaths }> {
  const info = readClusterInfo(stateDir);
  if (!info) throw new Error(`cluster: no cluster.json in ${stateDir}`);
  const paths = statePaths(stateDir);
  const context: CommandContext = {
    binDir: info.binDir ?? defaultBinDir(),
    pki: pkiIn(paths.pki),
    ports: info.ports,
    etcdDataDir: paths.etcdData,
    auditLog: paths.auditLog,
    kubeconfigs: componentKubeconfigs(paths),
    stageFiles: await stageFiles(),
    limits: info.limits,
  };
  return { context, paths };
}

function recorded(stateDir: string, name: ComponentName) {
  const entry = readPids(statePaths(stateDir).pids).find((p) => p.name === name);
  if (!entry) throw new Error(`cluster: no ${name} recorded in ${stateDir}`);
  return entry;
}

/** Stops one component (SIGTERM to its process group, SIGKILL after `graceMs`) and waits until it is gone. */
export async function stopComponent(stateDir: string, name: ComponentName, graceMs = 5000): Promise<void> {
  const entry = recorded(stateDir, name);
  if (!isAlive(entry.pid)) throw new Error(`cluster: ${name} (pid ${entry.pid}) is not running`);
  await stopProcesses([entry], graceMs);
}

/** Starts a stopped component again with the command line it had, and waits until it answers its health check. */
export async function startComponent(stateDir: string, name: ComponentName): Promise<void> {
  const entry = recorded(stateDir, name);
  if (isAlive(entry.pid)) throw new Error(`cluster: ${name} (pid ${entry.pid}) is still running`);
  const { context, paths } = await commandContext(stateDir);
  await launchComponent(name, context, paths);
}

/** Waits until a running component answers its health check (the API server after etcd came back, say). */
export async function waitComponentHealthy(stateDir: string, name: ComponentName, timeoutMs = 90_000): Promise<void> {
  const { context } = await commandContext(stateDir);
  await pollUntil(() => componentHealthy(name, context), { timeoutMs, intervalMs: 100, what: `${name} healthy` });
}
