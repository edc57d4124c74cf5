// The real node behind loopback: its bridge, pods and Services live in a
// network namespace of their own. While it runs, the machine's own namespace
// has no address or route in a private range; the API server reaches the
// kubelet and the pods through the node's door, the pods reach the API server
// through a Unix socket, and the host reaches a pod through the door too.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { dialThroughDoor, forwardThroughDoor, startDoorProxy } from '../local/node/door.ts';
import { MODULE_IMAGE } from '../local/node/images.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { onRealNode, restrictedContainer } from '../local/node/real-modules.ts';
import { overlapsPrivate, privateOnHost } from './support/host-network.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './support/kube.ts';
import { useRealNode } from './support/real-node.ts';
import { tempDir } from '../local/temp-dir.ts';

describe('the private-range check', () => {
  it('flags what overlaps 10/8, 172.16/12 or 192.168/16, and nothing else', () => {
    const flagged = ['10.88.0.1/24', '10.96.0.0/16', '172.20.1.1', '192.168.1.5/32', '8.0.0.0/6', '172.16.0.0/12'];
    const clean = ['127.0.0.1/8', '192.0.2.2/24', '172.32.0.1', '11.0.0.0/8', '169.254.1.1/16', 'fd00::1'];
    expect(flagged.filter((c) => !overlapsPrivate(c))).toEqual([]);
    expect(clean.filter((c) => overlapsPrivate(c))).toEqual([]);
  });
});

describe('a door proxy on loopback', () => {
  it('connects a CONNECT to its target, and answers 502 with the reason when the target refuses', async () => {
    const door = `${tempDir('cascade-door-')}/door.sock`;
    const proxy = await startDoorProxy(door);
    const target = createServer((req, res) => res.end(`hello ${req.url}`));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as { port: number }).port;
    try {
      const forward = await forwardThroughDoor(door, '127.0.0.1', port);
      expect(await (await fetch(`http://127.0.0.1:${forward.port}/x`)).text()).toBe('hello /x');
      await forward.close();
      target.close();
      await expect(dialThroughDoor(door, '127.0.0.1', port)).rejects.toThrow(/502 Bad Gateway/);
    } finally {
      proxy.close();
      target.close();
    }
  });
});

describe('the real node behind loopback', () => {
  useRealNode();

  it('leaves no private address or route on the host while a pod runs, and every way in and out goes through its doors', async () => {
    const namespace = await createTestNamespace('cascade-loopback');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          ...onRealNode,
          containers: [
            {
              name: 'web',
              image: MODULE_IMAGE,
              command: ['/bin/busybox', 'sh', '-c', 'echo serving; exec /bin/busybox httpd -f -p 8080 -h /'],
              readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
              securityContext: restrictedContainer,
            },
          ],
        },
      },
    });
    const pod = await waitFor(
      async () => {
        const now = await core.readNamespacedPod({ namespace, name: 'web' });
        return now.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? now : undefined;
      },
      { timeoutMs: 120_000, message: 'pod web Ready on the real node' },
    );
    expect(pod.status?.podIP && overlapsPrivate(pod.status.podIP)).toBe(true);
    expect(privateOnHost()).toEqual([]);

    // the API server to the kubelet: its egress, the door
    expect(await core.readNamespacedPodLog({ namespace, name: 'web' })).toContain('serving');
    // the host to the pod: a 127.0.0.1 port piped through the door; busybox's httpd answers
    const forward = await forwardThroughDoor(REAL_NODE.door, pod.status!.podIP!, 8080);
    try {
      const answer = await fetch(`http://127.0.0.1:${forward.port}/`);
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(500);
    } finally {
      await forward.close();
    }
    await core.deleteNamespacedPod({ namespace, name: 'web', gracePeriodSeconds: 0 });
  }, 300_000);

  it("in the node's namespace, only the door listens on a port of the ephemeral range: the API server's", () => {
    // a random port of containerd's (or any part's) could be the API server's on the node's next start
    const [low, high] = inNode('cat', '/proc/sys/net/ipv4/ip_local_port_range').trim().split(/\s+/).map(Number);
    const apiPort = Number(new URL(adminKubeConfig().getCurrentCluster()!.server).port);
    const ports = listeningPorts(inNode('cat', '/proc/net/tcp', '/proc/net/tcp6'));
    expect(ports).toContain(REAL_NODE.streamServerPort);
    expect(ports.filter((p) => p >= low! && p <= high!)).toEqual([apiPort]);
  });
});

/** A command's output, run in the node's network namespace: /proc/net there is the namespace's. */
function inNode(...command: string[]): string {
  return execFileSync('nsenter', [`--net=/run/netns/${REAL_NODE.netns}`, '--', ...command], { encoding: 'utf8' });
}

/** The local ports of the sockets in state LISTEN (0A) of /proc/net/tcp's lines. */
function listeningPorts(table: string): number[] {
  const ports = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === '0A')
    .map((fields) => parseInt(fields[1]!.split(':').at(-1)!, 16));
  return [...new Set(ports)].sort((a, b) => a - b);
}
