// The local registry: CNCF Distribution's, run by the real node on 127.0.0.1
// of both network namespaces. An image pushed from the host as an OCI layout
// with crane is pulled by the node's containerd by digest, as on any cluster.
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildImage } from '../local/node/image-build.ts';
import { moduleImage } from '../local/node/images.ts';
import { onRealNode, restrictedContainer } from '../local/node/real-modules.ts';
import { ensureRegistryTools, pushImage, REGISTRY } from '../local/registry/registry.ts';
import { tempDir } from '../local/temp-dir.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './support/kube.ts';
import { useRealNode } from './support/real-node.ts';

describe('the local registry', () => {
  useRealNode();

  it('serves an image pushed from the host to the real node, pulled by its digest', async () => {
    const archive = join(tempDir('cascade-registry-'), 'module.tar');
    await buildImage(moduleImage(), archive);
    const { crane } = await ensureRegistryTools();
    const tag = `t${Date.now().toString(36)}`;
    const reference = await pushImage(crane, archive, `${REGISTRY}/test/module`, tag);
    expect(reference).toMatch(new RegExp(`^${REGISTRY}/test/module@sha256:[0-9a-f]{64}$`));
    const digest = reference.split('@')[1]!;

    const namespace = await createTestNamespace('cascade-registry');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'pulled' },
        spec: {
          ...onRealNode,
          restartPolicy: 'Never',
          containers: [
            {
              name: 'pulled',
              image: reference,
              imagePullPolicy: 'Always',
              command: ['/bin/busybox', 'echo', 'pulled'],
              securityContext: restrictedContainer,
            },
          ],
        },
      },
    });
    const pod = await waitFor(
      async () => {
        const now = await core.readNamespacedPod({ namespace, name: 'pulled' });
        return now.status?.phase === 'Succeeded' || now.status?.phase === 'Failed' ? now : undefined;
      },
      { timeoutMs: 120_000, message: 'pod pulled ended' },
    );
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.status?.containerStatuses?.[0]?.imageID).toContain(digest);
    expect(await core.readNamespacedPodLog({ namespace, name: 'pulled' })).toBe('pulled\n');
  }, 300_000);
});
