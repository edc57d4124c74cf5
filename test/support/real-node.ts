// The real node (local/node/) for the test files that ask for it: joined to
// the test cluster in their beforeAll, gone in their afterAll. A node that
// `CASCADE_REAL_NODE=1 npm run cluster:up` started on the cluster the tests
// use is used as it is, and left running.
import { dirname } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { realNodeRunning, startRealNode } from '../../local/node/node.ts';
import { REAL_NODE } from '../../local/node/node-config.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';

/** A first run builds the node's binaries (several minutes) and may wait for another test run's node. */
export const REAL_NODE_HOOK_TIMEOUT = 1_800_000;

/** Waits until no pod is left on the real node, so that the kubelet has ended them all before it goes. */
async function waitNodeEmpty(): Promise<void> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await waitFor(
    async () =>
      (await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${REAL_NODE.name}` })).items.length === 0,
    { timeoutMs: 60_000, message: `no pod left on ${REAL_NODE.name}` },
  );
}

/** Joins the real node to the test cluster for this file (beforeAll), and stops it after (afterAll). */
export function useRealNode(): void {
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const clusterStateDir = dirname(adminKubeconfigPath());
    if (realNodeRunning(clusterStateDir)) return;
    const log = (message: string) => process.stderr.write(`${message}\n`);
    const node = await startRealNode({ clusterStateDir, log, tieToProcess: true });
    stop = node.stop;
  }, REAL_NODE_HOOK_TIMEOUT);
  afterAll(async () => {
    if (!stop) return;
    await waitNodeEmpty().catch(() => {});
    await stop();
  }, 120_000);
}
