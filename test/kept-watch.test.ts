// The watch the ApiServerSource stand-in and the bench keep open
// (local/kept-watch.ts), on the real API server: a watch the API server ends
// (here its timeoutSeconds) is opened again where it left off, so nothing is
// told twice and nothing is missed. (What a 410 Gone does is unit-tested
// beside the code: this API server keeps every version while the test runs.)
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { keptWatch, type KeptWatch } from '../local/kept-watch.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './support/kube.ts';

let w: KeptWatch | undefined;
afterEach(() => {
  w?.stop();
  w = undefined;
});

function watchConfigMaps(ns: string) {
  const seen: string[] = [];
  w = keptWatch({
    kc: adminKubeConfig(),
    path: `/api/v1/namespaces/${ns}/configmaps`,
    query: { labelSelector: 'kept', timeoutSeconds: '1' },
    on: (phase, obj) => seen.push(`${phase} ${(obj as { metadata: { name: string } }).metadata.name}`),
  });
  return { seen, w };
}

async function configMap(core: CoreV1Api, ns: string, name: string, data: string) {
  try {
    await core.replaceNamespacedConfigMap({
      namespace: ns,
      name,
      body: { metadata: { name, labels: { kept: 'yes' } }, data: { v: data } },
    });
  } catch {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name, labels: { kept: 'yes' } }, data: { v: data } },
    });
  }
}

describe('a kept watch', () => {
  it('ended by the API server, opens again where it left off: each change told once, in order, none missed', async () => {
    const ns = await createTestNamespace('kept-watch');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await configMap(core, ns, 'before', '1');
    const { seen, w } = watchConfigMaps(ns);
    await w.ready;
    await waitFor(() => seen.length >= 1, { message: 'the existing object' });
    await waitFor(() => w.reopened().resumed >= 2, { message: 'two watches ended and resumed' });
    await configMap(core, ns, 'after', '1');
    await configMap(core, ns, 'before', '2');
    await waitFor(() => w.reopened().resumed >= 4, { message: 'two more watches ended and resumed' });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'after' });
    await waitFor(() => seen.length >= 4, { message: 'the delete' });
    await waitFor(() => w.reopened().resumed >= 6, { message: 'two more watches ended and resumed' });
    expect(seen).toEqual(['ADDED before', 'ADDED after', 'MODIFIED before', 'DELETED after']);
    expect(w.reopened().fromNow).toBe(0);
  });
});
