// The function from its own image (local/node/function-image.ts), as a
// real pod on the real node. Its Deployment has knative/service.yaml's pod spec (read-only root file
// system, non-root, no capabilities, RuntimeDefault seccomp) in a namespace
// that enforces the `restricted` Pod Security Standard. It reaches the API
// server through the `kubernetes` Service with its ServiceAccount's token,
// and serves a run whose modules are real containers too.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { realModule } from '../local/node/real-modules.ts';
import { cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { importFunctionImage } from '../local/node/function-image.ts';
import { functionPodSpec, startFunctionPod } from './support/function-pod.ts';
import { jobsDeletedAndDelivered } from './support/jobs-deleted.ts';
import { adminKubeConfig, createTestNamespace } from './support/kube.ts';
import { REAL_NODE_HOOK_TIMEOUT, useRealNode } from './support/real-node.ts';

useRealNode();

const IUID = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';
const RUN = `${SCENARIO}-33e65`;
let removeStages: (() => void) | undefined;
let h: Harness | undefined;

beforeAll(async () => {
  removeStages = await importFunctionImage();
}, REAL_NODE_HOOK_TIMEOUT);
afterEach(async () => {
  await h?.stop();
  h = undefined;
});
afterAll(() => removeStages?.());

describe("the function's image as a pod on the real node", () => {
  it('runs under the restricted profile with a read-only root: serves a run, /healthz and metrics, and ends on SIGTERM within its grace', async () => {
    h = await cascadeHarness({
      modules: [realModule('grayscale', { foo: 'bar' }), realModule('diff', { bar: 'foo' })],
      start: startFunctionPod,
    });
    const pods = await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: h.ns, labelSelector: 'app=cascade-function' });
    expect(pods.items[0]?.spec?.containers[0]?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
    });

    expect(await post(h.url(), { turlinfo: 's3://incoming/in.tgz', iuid: IUID })).toMatchObject({ status: 200 });
    const run = await h.waitEnded(RUN, 120_000);
    expect(run.status).toMatchObject({ phase: 'Succeeded', info: `${OUT}${SCENARIO}/${IUID}/${IUID}-final.zip` });

    const health = await fetch(`${h.url()}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await fetch(h.fns[0]!.metricsUrl);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^cascade_/m);

    // the run's Jobs go once it ended: their delete events reach the function before it stops
    await jobsDeletedAndDelivered(h, run);
    const fn = h.fns[0]!;
    const stopping = Date.now();
    expect(await fn.stop()).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(functionPodSpec({}).terminationGracePeriodSeconds! * 1000);
    expect(fn.errorLines()).toEqual([]);
  }, 300_000);

  it('is refused by the restricted profile without its security context', async () => {
    const namespace = await createTestNamespace('cascade-psa');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: namespace });
    ns.metadata!.labels = { ...ns.metadata!.labels, 'pod-security.kubernetes.io/enforce': 'restricted' };
    await core.replaceNamespace({ name: namespace, body: ns });
    const spec = functionPodSpec({});
    const container = { ...spec.containers[0]! };
    delete container.securityContext;
    delete spec.serviceAccountName;
    const refused = core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'bare' }, spec: { ...spec, containers: [container] } },
    });
    await expect(refused).rejects.toMatchObject({ code: 403 });
    await expect(refused).rejects.toThrow(/forbidden: violates PodSecurity .*restricted:latest.*runAsNonRoot != true/);
  });
});
