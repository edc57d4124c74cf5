// What a running cluster leaves in its state dir (cluster.json), and how to
// tell whether it is still alive.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Health, KubeConfig } from '@kubernetes/client-node';
import type { ApiLimits, Ports } from './component-commands.ts';
import { isAlive, readPids } from './processes.ts';
import { statePaths } from './paths.ts';

export interface ClusterInfo {
  stateDir: string;
  kubeconfig: string;
  server: string;
  ports: Ports;
  /** Where the component binaries are (to start a stopped component again); build.sh's when absent. */
  binDir?: string;
  startedAt: string;
  /** Pid of the crash watchdog, if one was started. */
  watchdogPid?: number;
  /** The raised API limits it was started with (a component started again gets them too); absent: the defaults. */
  limits?: ApiLimits;
}

export async function writeClusterInfo(info: ClusterInfo): Promise<void> {
  await writeFile(statePaths(info.stateDir).info, `${JSON.stringify(info, null, 2)}\n`);
}

export function readClusterInfo(stateDir: string): ClusterInfo | undefined {
  const file = statePaths(stateDir).info;
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ClusterInfo;
  } catch {
    return undefined;
  }
}

/** Recorded component processes that are still running. */
export function livePids(stateDir: string) {
  return readPids(statePaths(stateDir).pids).filter((p) => isAlive(p.pid));
}

/** True when the API server behind `kubeconfigFile` answers /readyz. */
export async function apiserverReady(kubeconfigFile: string): Promise<boolean> {
  if (!existsSync(kubeconfigFile)) return false;
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigFile);
    return await new Health(kc).readyz({ timeout: 3000 });
  } catch {
    return false;
  }
}
