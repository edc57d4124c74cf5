// The one informer (shared/kube/informer.ts), as the function runs it over
// node:https, on the real API server. A watch the API server ends is opened
// again where it left off: each change told once, in order, none missed. A
// watch that can no longer resume, 410 Gone, lists again: objects deleted
// while it was away are told deleted. Here the API server is stopped, an
// object is deleted in etcd itself and etcd's history compacted, so nothing
// but a list can tell the deletion; the API server started again knows no
// version older than its start.
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type RunningCluster } from '../local/cluster/cluster.ts';
import { startComponent, stopComponent, waitComponentHealthy } from '../local/cluster/components.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { createNamespace } from '../local/kube.ts';
import { kubeconfigConnection } from '../shared/kube/connect.ts';
import { inform, type Informer, type Versioned } from '../shared/kube/informer.ts';
import { httpsTransport } from '../shared/kube/watch-stream.ts';
import { waitFor } from './support/kube.ts';

let cluster: RunningCluster | undefined;
let kc: KubeConfig;
const informers: Informer[] = [];
beforeAll(async () => {
  const stateDir = join(repoRoot, '.cascade', `informer-cluster-${process.pid}`);
  cluster = await startCluster({ stateDir, tieToProcess: true, log: (m) => process.stderr.write(`informer ${m}\n`) });
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfig);
});
afterAll(async () => {
  for (const i of informers) i.stop();
  await cluster?.stop();
});

const LABEL = 'informed';

async function configMap(core: CoreV1Api, namespace: string, name: string, v: string): Promise<void> {
  const body = { metadata: { name, labels: { [LABEL]: 'yes' } }, data: { v } };
  try {
    await core.replaceNamespacedConfigMap({ namespace, name, body });
  } catch {
    await core.createNamespacedConfigMap({ namespace, body });
  }
}

/** Every change told, as "CHANGE name" and whether it came from a list. */
function informed(namespace: string, query: Record<string, string> = {}) {
  const told: string[] = [];
  const conn = kubeconfigConnection(cluster!.kubeconfig);
  const i = inform({
    transport: httpsTransport(conn, `/api/v1/namespaces/${namespace}/configmaps`, { labelSelector: LABEL, ...query }),
    on: (change, object, listed) =>
      told.push(`${change} ${(object as Versioned).metadata?.name}${listed ? ' (listed)' : ''}`),
  });
  informers.push(i);
  return { told, i };
}

/** etcd's JSON gateway on its client port. */
async function etcd(path: string, body: unknown): Promise<{ header?: { revision?: string }; deleted?: string }> {
  const res = await fetch(`http://127.0.0.1:${cluster!.ports.etcdClient}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { header?: { revision?: string }; deleted?: string };
}

describe('the informer', () => {
  it('ended by the API server, opens again where it left off: each change told once, in order, none missed', async () => {
    const ns = await createNamespace(kc, 'informer-resume');
    const core = kc.makeApiClient(CoreV1Api);
    await configMap(core, ns, 'before', '1');
    const { told, i } = informed(ns, { timeoutSeconds: '1' });
    await i.synced;
    expect(told).toEqual(['ADDED before (listed)']);
    await new Promise((r) => setTimeout(r, 2500));
    await configMap(core, ns, 'after', '1');
    await configMap(core, ns, 'before', '2');
    await new Promise((r) => setTimeout(r, 2500));
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'after' });
    await waitFor(() => told.length >= 4, { message: 'the delete' });
    await new Promise((r) => setTimeout(r, 2500));
    expect(told).toEqual(['ADDED before (listed)', 'ADDED after', 'MODIFIED before', 'DELETED after']);
    expect(i.lists(), 'never listed again').toBe(1);
  });

  it('after 410 Gone lists again, and tells each object deleted meanwhile deleted, once', async () => {
    const ns = await createNamespace(kc, 'informer-gone');
    const core = kc.makeApiClient(CoreV1Api);
    for (const name of ['kept', 'changed', 'deleted']) await configMap(core, ns, name, '1');
    const { told, i } = informed(ns);
    await i.synced;
    expect(told.sort()).toEqual(['ADDED changed (listed)', 'ADDED deleted (listed)', 'ADDED kept (listed)']);
    told.length = 0;

    await stopComponent(cluster!.stateDir, 'kube-apiserver');
    // Behind the API server's back: one object deleted, another changed, a third added, then the history compacted.
    const key = (name: string) => Buffer.from(`/registry/configmaps/${ns}/${name}`).toString('base64');
    expect((await etcd('/v3/kv/deleterange', { key: key('deleted') })).deleted).toBe('1');
    const { header } = await etcd('/v3/kv/range', { key: key('kept'), count_only: true });
    await etcd('/v3/kv/compaction', { revision: header?.revision, physical: true });
    await startComponent(cluster!.stateDir, 'kube-apiserver');
    await waitComponentHealthy(cluster!.stateDir, 'kube-apiserver');

    await waitFor(() => i.lists() >= 2, { message: 'listed again after 410 Gone', timeoutMs: 90_000 });
    expect(told).toEqual(['DELETED deleted (listed)']);
    // The watch goes on from the new list.
    await configMap(core, ns, 'changed', '2');
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'kept' });
    await waitFor(() => told.length >= 3, { message: 'the changes after the list' });
    expect(told).toEqual(['DELETED deleted (listed)', 'MODIFIED changed', 'DELETED kept']);
  });
});
