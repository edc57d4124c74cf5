// Cascade's Knative Service on real Knative Serving v0.50.0 (controller,
// webhook, activator, autoscaler, queue-proxy as the injected sidecar) with
// Traefik's Knative provider as the networking layer, all as pods on the real
// node, installed from their own manifests (local/knative/serving/). The
// autoscaler's stable window and scale-to-zero grace period are shortened to
// 6 s, their minimum, so that scale to zero takes seconds, not minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installServing, uninstallServing } from '../local/knative/serving/install.ts';
import { servingImageReference } from '../local/knative/serving/images.ts';
import { TRAEFIK_INGRESS_CLASS } from '../local/knative/serving/manifests.ts';
import { TRAEFIK_NAMESPACE, TRAEFIK_PRIVATE_SERVICE } from '../local/knative/serving/traefik.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { importFunctionImage } from '../local/node/function-image.ts';
import {
  applyCascadeService,
  condition,
  deleteCascadeService,
  getFromPod,
  getInCluster,
  getKnative,
  servicePods,
  type KnativeObject,
} from '../local/knative/serving/cascade-service.ts';
import { adminKubeconfigPath, createTestNamespace, waitFor } from './support/kube.ts';
import { REAL_NODE_HOOK_TIMEOUT, useRealNode } from './support/real-node.ts';

useRealNode();

const TEST_AUTOSCALER = { 'stable-window': '6s', 'scale-to-zero-grace-period': '6s' };

let ns = '';
let removeStages: (() => void) | undefined;
const log = (message: string) => process.stderr.write(`${message}\n`);

beforeAll(async () => {
  const [, remove] = await Promise.all([
    installServing(adminKubeconfigPath(), { autoscaler: TEST_AUTOSCALER, log }),
    importFunctionImage(),
  ]);
  removeStages = remove;
  ns = await createTestNamespace('knative-serving');
  await applyCascadeService(adminKubeconfigPath(), ns);
}, REAL_NODE_HOOK_TIMEOUT);
afterAll(async () => {
  removeStages?.();
  if (ns) await deleteCascadeService(adminKubeconfigPath(), ns);
  await uninstallServing(adminKubeconfigPath());
}, 300_000);

const ksvc = () =>
  getKnative(adminKubeconfigPath(), {
    group: 'serving.knative.dev',
    plural: 'services',
    namespace: ns,
    name: 'cascade',
  });

async function ready(get: () => Promise<KnativeObject>, what: string): Promise<KnativeObject> {
  let last: KnativeObject | undefined;
  try {
    await waitFor(
      async () => {
        last = await get().catch(() => undefined);
        return condition(last, 'Ready')?.status === 'True';
      },
      { timeoutMs: 300_000, intervalMs: 1000, message: `${what} Ready` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; its conditions: ${JSON.stringify(last?.status?.conditions)}`);
  }
  return last!;
}

async function noPod(): Promise<void> {
  await waitFor(async () => (await servicePods(adminKubeconfigPath(), ns, 'cascade')).length === 0, {
    timeoutMs: 240_000,
    intervalMs: 1000,
    message: 'the function has no pod',
  });
}

describe("Cascade's Knative Service on real Knative Serving", () => {
  it("reaches Ready under Knative's controllers and webhook, its pods on the real node behind the injected queue-proxy", async () => {
    const service = await ready(ksvc, 'Service cascade');
    expect(service.status?.url).toBe(`http://cascade.${ns}.svc.cluster.local`);
    // the webhook defaulted it and the controller made a Route whose Ingress Traefik reconciled
    const ingress = await ready(
      () =>
        getKnative(adminKubeconfigPath(), {
          group: 'networking.internal.knative.dev',
          plural: 'ingresses',
          namespace: ns,
          name: 'cascade',
        }),
      'Ingress',
    );
    expect(ingress.metadata.annotations?.['networking.knative.dev/ingress.class']).toBe(TRAEFIK_INGRESS_CLASS);
    expect(JSON.stringify(ingress.status?.privateLoadBalancer)).toContain(
      `${TRAEFIK_PRIVATE_SERVICE}.${TRAEFIK_NAMESPACE}.svc.cluster.local`,
    );
    const pods = await servicePods(adminKubeconfigPath(), ns, 'cascade');
    expect(pods.length).toBeGreaterThan(0);
    expect(pods[0]!.spec?.nodeName).toBe(REAL_NODE.name);
    expect(pods[0]!.spec?.containers.map((c) => [c.name, c.image])).toEqual([
      ['function', 'cascade.local/cascade:dev'],
      ['queue-proxy', servingImageReference('queue')],
    ]);
  });

  it('answers at its cluster-local address through the cluster DNS and Traefik, from a pod and from the host', async () => {
    await ready(ksvc, 'Service cascade');
    const url = `http://cascade.${ns}.svc.cluster.local`;
    expect(JSON.parse(await getFromPod(adminKubeconfigPath(), ns, url, '/healthz'))).toMatchObject({ status: 'OK' });
    const reply = await getInCluster(url, '/healthz');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'OK' });
  });

  it('scales to zero after the stable window, and a request wakes it through the activator', async () => {
    await ready(ksvc, 'Service cascade');
    await noPod();
    const revision = (await ksvc()).status?.latestReadyRevisionName as string;
    // with no pod, the revision's ServerlessService sends its traffic to the activator
    const sks = await getKnative(adminKubeconfigPath(), {
      group: 'networking.internal.knative.dev',
      plural: 'serverlessservices',
      namespace: ns,
      name: revision,
    });
    expect(sks.spec?.mode).toBe('Proxy');
    const reply = await getInCluster(`http://cascade.${ns}.svc.cluster.local`, '/healthz');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'OK' });
    expect((await servicePods(adminKubeconfigPath(), ns, 'cascade')).length).toBeGreaterThan(0);
  });
});
