// The local registry: CNCF Distribution's, run by the real node on 127.0.0.1
// of both network namespaces. The release's image, as `npm run dist` writes
// it, is pushed from the host with crane, keeps its digest, and is pulled by
// the node's containerd by that digest, as on any cluster.
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildFunctionImage } from '../local/node/function-image.ts';
import { onRealNode, restrictedContainer } from '../local/node/real-modules.ts';
import { ensureRegistryTools, pushImage, REGISTRY } from '../local/registry/registry.ts';
import { tempDir } from '../local/temp-dir.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './support/kube.ts';
import { useRealNode } from './support/real-node.ts';

describe('the local registry', () => {
  useRealNode();

  it("serves the release's image pushed from the host to the real node, pulled by the digest dist gave it", async () => {
    const layout = join(tempDir('cascade-registry-'), 'image');
    const image = await buildFunctionImage({ layout });
    image.cleanup();
    const { crane } = await ensureRegistryTools();
    const tag = `t${Date.now().toString(36)}`;
    const reference = await pushImage(crane, layout, `${REGISTRY}/cascade/cascade`, tag);
    expect(reference).toBe(`${REGISTRY}/cascade/cascade@${image.digest}`);
    const digest = image.digest;

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
              command: ['/usr/local/bin/node', '-e', 'console.log("pulled")'],
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
  }, 600_000);
});
