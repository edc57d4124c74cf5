// startCluster / stopCluster: the local control plane (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok with two fake nodes).
import { mkdir, rm } from 'node:fs/promises';
import { ensureBinaries } from './binaries.ts';
import { createPki, type Pki } from './certs.ts';
import { readClusterInfo, livePids, writeClusterInfo, type ClusterInfo } from './cluster-state.ts';
import { kubernetesServiceIp, type ApiLimits, type CommandContext, type Ports } from './component-commands.ts';
import { componentKubeconfigs, stageFiles } from './components.ts';
import { launchControlPlane } from './launch.ts';
import { writeKubeconfig } from './kubeconfig-file.ts';
import { adminCoreApi, createNodes, waitDefaultServiceAccount, waitNodesReady } from './nodes.ts';
import { defaultStateDir, statePaths, type StatePaths } from './paths.ts';
import { freePorts } from './ports.ts';
import { killProcessesNow, readPids, stopProcesses } from './processes.ts';
import { startWatchdog } from './watchdog.ts';
import { stopRealNode } from '../node/node.ts';

export interface StartOptions {
  /** Default: $CASCADE_CLUSTER_STATE or <repo>/.cascade/cluster. */
  stateDir?: string;
  /** Default: build.sh's directory (built first when incomplete). */
  binDir?: string;
  /**
   * Tie the cluster to this Node process: kill it on exit and, through a
   * detached watchdog, also when the process crashes or is killed. The
   * watchdog then also removes the state dir.
   */
  tieToProcess?: boolean;
  /** Progress messages. */
  log?: (message: string) => void;
  /** Raised API rate limits of the components (the bench's); default: theirs. */
  limits?: ApiLimits;
}

export interface RunningCluster extends ClusterInfo {
  stop(): Promise<void>;
}

async function allocatePorts(): Promise<Ports> {
  const [etcdClient, etcdPeer, apiserver, controllerManager, scheduler, kwok] = (await freePorts(6)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { etcdClient, etcdPeer, apiserver, controllerManager, scheduler, kwok };
}

async function writeKubeconfigs(paths: StatePaths, pki: Pki, server: string) {
  const write = (target: string, name: Parameters<Pki['client']>[0], user: string) =>
    writeKubeconfig(target, {
      server,
      caCert: pki.caCert,
      clientCert: pki.client(name).cert,
      clientKey: pki.client(name).key,
      user,
    });
  const kubeconfigs = componentKubeconfigs(paths);
  await Promise.all([
    write(paths.adminKubeconfig, 'admin', 'cascade-admin'),
    write(kubeconfigs.controllerManager, 'kube-controller-manager', 'system:kube-controller-manager'),
    write(kubeconfigs.scheduler, 'kube-scheduler', 'system:kube-scheduler'),
    write(kubeconfigs.kwok, 'kwok', 'cascade-kwok'),
  ]);
  return kubeconfigs;
}

async function prepareStateDir(paths: StatePaths): Promise<void> {
  const running = livePids(paths.root);
  if (running.length > 0) {
    throw new Error(
      `cluster: already running in ${paths.root} (pids ${running.map((p) => p.pid).join(', ')}); ` +
        'stop it first with `npm run cluster:down`',
    );
  }
  await rm(paths.root, { recursive: true, force: true });
  for (const dir of [paths.pki, paths.logs, paths.etcdData, paths.kubeconfigs]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
}

async function waitUsable(kubeconfig: string, abort: () => Promise<void>): Promise<void> {
  const core = adminCoreApi(kubeconfig);
  await createNodes(core);
  await waitNodesReady(core, { timeoutMs: 60_000, abort });
  await waitDefaultServiceAccount(core, { timeoutMs: 60_000, abort });
}

/** Starts the control plane and waits until it is usable. */
export async function startCluster(options: StartOptions = {}): Promise<RunningCluster> {
  const log = options.log ?? (() => {});
  const paths = statePaths(options.stateDir ?? defaultStateDir());
  await prepareStateDir(paths);
  const binDir = options.binDir ?? (await ensureBinaries());
  const ports = await allocatePorts();
  log('cluster: creating certificates');
  const pki = await createPki(paths.pki, kubernetesServiceIp);
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const kubeconfigs = await writeKubeconfigs(paths, pki, server);
  const info: ClusterInfo = {
    stateDir: paths.root,
    kubeconfig: paths.adminKubeconfig,
    server,
    ports,
    binDir,
    startedAt: new Date().toISOString(),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  if (options.tieToProcess) {
    info.watchdogPid = startWatchdog({ parentPid: process.pid, pidsFile: paths.pids, removeDir: paths.root });
    process.once('exit', () => killProcessesNow(readPids(paths.pids)));
  }
  await writeClusterInfo(info);
  const context: CommandContext = {
    binDir,
    pki,
    ports,
    etcdDataDir: paths.etcdData,
    auditLog: paths.auditLog,
    kubeconfigs,
    stageFiles: await stageFiles(),
    limits: options.limits,
  };
  try {
    const { assertAlive } = await launchControlPlane(context, paths, log);
    log('cluster: waiting for nodes and the default ServiceAccount');
    await waitUsable(paths.adminKubeconfig, assertAlive);
  } catch (error) {
    await stopProcesses(readPids(paths.pids));
    throw error;
  }
  return { ...info, stop: () => stopCluster({ stateDir: paths.root }) };
}

/** Ends every recorded process of the cluster in `stateDir` and removes the dir. */
export async function stopCluster(options: { stateDir?: string; keepState?: boolean } = {}): Promise<void> {
  const stateDir = options.stateDir ?? defaultStateDir();
  const info = readClusterInfo(stateDir);
  await stopRealNode(stateDir);
  await stopProcesses(readPids(statePaths(stateDir).pids));
  if (info?.watchdogPid) await stopProcesses([{ name: 'watchdog', pid: info.watchdogPid }], 1000);
  if (!options.keepState) await rm(stateDir, { recursive: true, force: true });
}
