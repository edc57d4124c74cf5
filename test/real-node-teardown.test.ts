// The real node leaves nothing on the host when it goes: not when it is
// stopped, and not when the process that started it is killed (its watchdog
// tears it down). A pod runs first, so that there are mounts, a network
// namespace, cgroups and nftables rules to undo.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { MODULE_IMAGE } from '../local/node/images.ts';
import { realNodePaths, startRealNode } from '../local/node/node.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { onRealNode, restrictedContainer } from '../local/node/real-modules.ts';
import { privateOnHost } from './support/host-network.ts';
import { adminKubeConfig, adminKubeconfigPath, createTestNamespace, waitFor } from './support/kube.ts';
import { REAL_NODE_HOOK_TIMEOUT } from './support/real-node.ts';

const clusterStateDir = () => dirname(adminKubeconfigPath());

/** What the node may leave on the host, as found now. */
function hostState() {
  const cgroups = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f[2] === 'cgroup' && f[1]?.startsWith('/sys/fs/cgroup/'))
    .map((f) => join(f[1]!, REAL_NODE.cgroupRoot))
    .filter(existsSync);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((m) => m.startsWith(REAL_NODE.root) || m.startsWith(REAL_NODE.run));
  const tables = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' })
    .split('\n')
    .filter((t) => /kube-proxy|cni_hostport/.test(t));
  const paths = [REAL_NODE.root, REAL_NODE.run, '/run/containerd/s', '/var/lib/cni/results'].filter(existsSync);
  const netns = existsSync(`/run/netns/${REAL_NODE.netns}`);
  const network = privateOnHost();
  return {
    cgroups,
    mounts,
    tables,
    paths,
    netns,
    network,
    ipForward: readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8'),
  };
}

/** Runs one Job on the real node to its end, and deletes it with its pod. */
async function runOnePod(): Promise<void> {
  const namespace = await createTestNamespace('cascade-teardown');
  const kc = adminKubeConfig();
  const batch = kc.makeApiClient(BatchV1Api);
  await batch.createNamespacedJob({
    namespace,
    body: {
      metadata: { name: 'one' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            ...onRealNode,
            restartPolicy: 'Never',
            containers: [{ name: 'one', image: MODULE_IMAGE, securityContext: restrictedContainer }],
          },
        },
      },
    },
  });
  await waitFor(async () => (await batch.readNamespacedJob({ name: 'one', namespace })).status?.succeeded === 1, {
    timeoutMs: 60_000,
    message: 'Job one succeeded on the real node',
  });
  await batch.deleteNamespacedJob({ name: 'one', namespace, body: { propagationPolicy: 'Foreground' } });
  const core = kc.makeApiClient(CoreV1Api);
  await waitFor(async () => (await core.listNamespacedPod({ namespace })).items.length === 0, {
    message: 'the pod deleted',
  });
}

describe('the real node leaves the host as it found it', () => {
  it(
    'when stopped, after a pod ran',
    async () => {
      const before = hostState();
      const node = await startRealNode({ clusterStateDir: clusterStateDir() });
      await runOnePod();
      expect(hostState()).toMatchObject({ netns: true, network: [] });
      await node.stop();
      expect(hostState()).toEqual(before);
      expect(existsSync(realNodePaths(clusterStateDir()).dir)).toBe(false);
      const nodes = await adminKubeConfig().makeApiClient(CoreV1Api).listNode();
      expect(nodes.items.map((n) => n.metadata?.name)).not.toContain(REAL_NODE.name);
    },
    REAL_NODE_HOOK_TIMEOUT,
  );

  it(
    'when the process that started it is killed: its watchdog tears it down',
    async () => {
      const before = hostState();
      const script = `
        import { startRealNode } from ${JSON.stringify(join(repoRoot, 'local/node/node.ts'))};
        await startRealNode({ clusterStateDir: ${JSON.stringify(clusterStateDir())}, tieToProcess: true });
        process.stdout.write('ready\\n');
        setInterval(() => {}, 1000);
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        child.on('exit', (code) => reject(new Error(`the node's starter exited with ${code}`)));
      });
      expect(hostState()).toMatchObject({ netns: true, network: [] });
      child.kill('SIGKILL');
      await waitFor(() => !existsSync(realNodePaths(clusterStateDir()).dir), {
        timeoutMs: 60_000,
        message: 'the watchdog tore the node down',
      });
      expect(hostState()).toEqual(before);
      const nodes = await adminKubeConfig().makeApiClient(CoreV1Api).listNode();
      expect(nodes.items.map((n) => n.metadata?.name)).not.toContain(REAL_NODE.name);
    },
    REAL_NODE_HOOK_TIMEOUT,
  );
});
