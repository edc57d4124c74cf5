// startRealNode / stopRealNode: one real node beside kwok's, on a running
// local cluster (local/cluster/): containerd with runc and CNI, the kubelet
// and kube-proxy, built by build.sh, configured by node-config.ts, on the host
// set up by host.sh. Its images (images.ts) are imported into its containerd,
// so that nothing is pulled. The node's processes run in its network
// namespace, with their own loopback; the machine's namespace keeps no
// address or route of the cluster. The doors of door.ts join the two. The
// node and its pods reach the API server's 127.0.0.1 port through a Unix
// socket; the `kubernetes` Service's endpoint is the node's address. The API
// server reaches webhooks and the kubelet through the door proxy, its egress.
// The host reaches the Broker's ingress at a 127.0.0.1 port. One real node
// runs on a machine at a time: a process holding a lock on LOCK_FILE comes
// first and goes last.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readClusterInfo, type ClusterInfo } from '../cluster/cluster-state.ts';
import { pkiIn, signClient } from '../cluster/certs.ts';
import { kubectlPath } from '../cluster/crds.ts';
import { writeKubeconfig } from '../cluster/kubeconfig-file.ts';
import { statePaths } from '../cluster/paths.ts';
import { isAlive, readPids, stopProcesses, type Component, type RecordedProcess } from '../cluster/processes.ts';
import { ensureNodeBinaries } from './binaries.ts';
import { importArchives, importImage, importImages } from './import-images.ts';
import type { CachedArchive } from './image-cache.ts';
import { joinCluster, leaveCluster, waitNodeReady } from './join.ts';
import { heldLock, startLock, startNodeProcess, startNodeWatchdog, waitSocket } from './node-processes.ts';
import {
  containerdConfig,
  corefile,
  cniConfig,
  kubeletArgs,
  kubeletConfig,
  kubeProxyArgs,
  nodePaths,
  REAL_NODE,
  registryHosts,
} from './node-config.ts';
import { ensureRegistryTools, registryConfig } from '../registry/registry.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
export const hostScript = join(here, 'host.sh');
const doorMain = join(here, 'door-main.ts');

type Command = { bin: string; args: string[] };

/** `command` run in the node's network namespace. */
function inNode(command: Command): Command {
  return { bin: 'nsenter', args: [`--net=/run/netns/${REAL_NODE.netns}`, '--', command.bin, ...command.args] };
}

/** A door process (door-main.ts) on the Node.js of this process. */
function door(...args: string[]): Command {
  return { bin: process.execPath, args: [doorMain, ...args] };
}

/** Where a cluster's state dir keeps its real node's files. */
export function realNodePaths(clusterStateDir: string) {
  const dir = join(clusterStateDir, 'node');
  return { dir, pids: join(dir, 'pids.json'), logs: statePaths(clusterStateDir).logs };
}

export interface RealNodeOptions {
  clusterStateDir: string;
  log?: (message: string) => void;
  /** Tear the node down when this process ends, even by a crash (a detached watchdog). */
  tieToProcess?: boolean;
}

async function writeConfigs(info: ClusterInfo, binDir: string, dir: string) {
  const pki = pkiIn(statePaths(info.stateDir).pki);
  const kubeconfig = async (stem: string, id: { cn: string; org?: string }) => {
    const signed = await signClient(statePaths(info.stateDir).pki, stem, id);
    const file = join(dir, `${stem}.kubeconfig`);
    await writeKubeconfig(file, {
      server: info.server,
      caCert: pki.caCert,
      clientCert: signed.cert,
      clientKey: signed.key,
      user: id.cn,
    });
    return file;
  };
  await mkdir(nodePaths.cniConfDir, { recursive: true });
  await writeFile(nodePaths.containerdConfig, containerdConfig(binDir));
  await writeFile(join(nodePaths.cniConfDir, '10-cascade.conflist'), cniConfig());
  const hosts = registryHosts();
  await mkdir(dirname(hosts.file), { recursive: true });
  await writeFile(hosts.file, hosts.text);
  await writeFile(join(dir, 'registry.yml'), registryConfig(REAL_NODE.registry.storage));
  await writeFile(nodePaths.kubeletConfig, kubeletConfig(pki.caCert));
  const dns = await kubeconfig('real-node-coredns', { cn: REAL_NODE.dnsUser });
  await writeFile(nodePaths.corefile, corefile(dns));
  return {
    kubelet: await kubeconfig('real-node-kubelet', { cn: `system:node:${REAL_NODE.name}`, org: 'system:nodes' }),
    kubeProxy: await kubeconfig('real-node-kube-proxy', { cn: 'system:kube-proxy' }),
  };
}

type Start = (name: string, command: Command) => void;

/**
 * The doors between the namespaces (door.ts): in the node, the door proxy and
 * 127.0.0.1 ports for the API server and the registry; in the machine's, their
 * sockets' other ends and the Broker's ingress port. Then the registry.
 */
async function startDoors(
  start: Start,
  at: { apiPort: number; registryBin: string; dir: string },
  started: Component[],
) {
  const { apiPort, registryBin, dir } = at;
  const { apiserverSocket: api, registry, brokerIngress: ingress } = REAL_NODE;
  start(
    'door',
    inNode(
      door(
        `proxy=${REAL_NODE.door},${REAL_NODE.address}`,
        `forward=tcp:0.0.0.0:${apiPort},unix:${api}`,
        `forward=tcp:127.0.0.1:${registry.port},unix:${registry.socket}`,
      ),
    ),
  );
  start(
    'host-door',
    door(
      `forward=unix:${api},tcp:127.0.0.1:${apiPort}`,
      `forward=tcp:127.0.0.1:${ingress.hostPort},connect:${REAL_NODE.door}:${ingress.clusterIp}:${ingress.port}`,
      `forward=unix:${registry.socket},tcp:127.0.0.1:${registry.port}`,
    ),
  );
  start('registry', { bin: registryBin, args: ['serve', join(dir, 'registry.yml')] });
  for (const socket of [REAL_NODE.door, api, registry.socket]) await waitSocket(socket, started);
}

/** containerd and the doors, the images, the kubelet and kube-proxy, in that order. */
async function startParts(
  info: ClusterInfo,
  bins: { node: string; registry: string },
  options: RealNodeOptions,
  started: Component[],
) {
  const binDir = bins.node;
  const log = options.log ?? (() => {});
  const paths = realNodePaths(info.stateDir);
  const kubeconfigs = await writeConfigs(info, binDir, paths.dir);
  const files = { pidsFile: paths.pids, logsDir: paths.logs };
  const env = { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` };
  const start: Start = (name, command) => started.push(startNodeProcess(name, { ...command, env }, files));
  log('real node: starting containerd, the doors and the registry');
  start('containerd', inNode({ bin: join(binDir, 'containerd'), args: ['--config', nodePaths.containerdConfig] }));
  await startDoors(start, { apiPort: info.ports.apiserver, registryBin: bins.registry, dir: paths.dir }, started);
  await waitSocket(nodePaths.containerdSocket, started);
  await importImages(binDir, log);
  await joinCluster(info.kubeconfig, info.ports.apiserver);
  start('coredns', inNode({ bin: join(binDir, 'coredns'), args: ['-conf', nodePaths.corefile] }));
  log('real node: starting the kubelet and kube-proxy');
  start('kubelet', inNode({ bin: join(binDir, 'kubelet'), args: kubeletArgs(kubeconfigs.kubelet) }));
  start('kube-proxy', inNode({ bin: join(binDir, 'kube-proxy'), args: kubeProxyArgs(kubeconfigs.kubeProxy) }));
  await waitNodeReady(info.kubeconfig, started);
  log(`real node: ${REAL_NODE.name} Ready`);
}

/** Starts the real node on the cluster of `clusterStateDir` and waits until it is Ready. */
export async function startRealNode(options: RealNodeOptions): Promise<{ stop: () => Promise<void> }> {
  const info = readClusterInfo(options.clusterStateDir);
  if (!info) throw new Error(`real node: no cluster in ${options.clusterStateDir}`);
  const paths = realNodePaths(info.stateDir);
  if (realNodeRunning(info.stateDir)) throw new Error(`real node: already running on the cluster in ${info.stateDir}`);
  // what a node killed with its watchdog left
  await rm(paths.dir, { recursive: true, force: true });
  await mkdir(paths.dir, { recursive: true });
  const [binDir, tools] = await Promise.all([ensureNodeBinaries(), ensureRegistryTools()]);
  options.log?.('real node: waiting for the machine-wide lock');
  const lock = await startLock(paths.pids, paths.logs);
  if (options.tieToProcess)
    startNodeWatchdog(
      process.pid,
      { pidsFile: paths.pids, hostScript, lockPid: lock.pid },
      { kubectl: kubectlPath(), kubeconfig: info.kubeconfig, node: REAL_NODE.name },
    );
  try {
    // what a node that was killed left behind, then the host as the node needs it
    await run('bash', [hostScript, 'down']);
    await run('bash', [hostScript, 'up']);
    await startParts(info, { node: binDir, registry: tools.registry }, options, []);
  } catch (error) {
    await stopRealNode(info.stateDir);
    throw error;
  }
  return { stop: () => stopRealNode(info.stateDir) };
}

/** True when the cluster in `clusterStateDir` has a real node whose every recorded process runs. */
export function realNodeRunning(clusterStateDir: string): boolean {
  const recorded = readPids(realNodePaths(clusterStateDir).pids);
  return recorded.length > 0 && recorded.every((p) => isAlive(p.pid));
}

/** Imports an image archive (image-build.ts) into the running real node's containerd. */
export async function importIntoRealNode(archive: string): Promise<void> {
  await importImage(await ensureNodeBinaries(), archive);
}

/** Imports the archives whose image the running real node lacks; resolves to how many it imported. */
export async function importCachedIntoRealNode(archives: CachedArchive[]): Promise<number> {
  return importArchives(await ensureNodeBinaries(), archives);
}

/** Stops the real node of the cluster in `clusterStateDir`, if it has one, and undoes what it left on the host. */
export async function stopRealNode(clusterStateDir: string): Promise<void> {
  const paths = realNodePaths(clusterStateDir);
  if (!existsSync(paths.pids)) return;
  const [lock, ...rest]: RecordedProcess[] = readPids(paths.pids);
  await stopProcesses(rest, 10_000);
  // A node still waiting for the lock has nothing on the host: what is there
  // belongs to the node that holds the lock, and stays.
  if (lock && heldLock(lock.pid, paths.logs)) {
    const info = readClusterInfo(clusterStateDir);
    if (info) await leaveCluster(info.kubeconfig).catch(() => {});
    await run('bash', [hostScript, 'down']);
  }
  if (lock) await stopProcesses([lock], 1000);
  await rm(paths.dir, { recursive: true, force: true });
}
