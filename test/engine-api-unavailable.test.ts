// The function's connection to the Kubernetes API goes away: a TCP proxy
// between the function process and the real API server, cut by the test.
// A run request is answered 503 with a one-line reason once p-retry has
// retried the call (cascade_api_retries_total says how often), nothing is
// created, the process lives on, and the same request is accepted once the
// connection is back. (The whole API server stopped and started again is a
// test of its own; this one is about one process and its connection.)
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { parseMetrics, scrape, value } from './support/ops.ts';
import { apiServerOf, tcpProxy, throughProxy, type TcpProxy } from './support/tcp-proxy.ts';

let h: Harness | undefined;
let proxy: TcpProxy | undefined;
let fn: FunctionProcess | undefined;
afterEach(async () => {
  await fn?.stop();
  await proxy?.close();
  await h?.stop();
  h = undefined;
  proxy = undefined;
  fn = undefined;
});

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };

async function created(h: Harness): Promise<{ runs: string[]; jobs: string[] }> {
  const runs = (await h.custom.listNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascaderuns' })) as {
    items: { metadata: { name: string } }[];
  };
  const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
  return { runs: runs.items.map((r) => r.metadata.name), jobs: jobs.items.map((j) => j.metadata?.name ?? '') };
}

describe('the Kubernetes API unreachable from the function', () => {
  it('answers 503 with a one-line reason after retrying, creates nothing, lives on, and accepts the request once the API is back', async () => {
    h = await cascadeHarness({ modules: successScenario(600_000), replicas: 0, source: false });
    proxy = await tcpProxy(apiServerOf(h.env.KUBECONFIG!));
    fn = await startFunction({ ...h.env, KUBECONFIG: throughProxy(h.env.KUBECONFIG!, proxy) });
    const retries = async () => value(parseMetrics(await scrape(fn!.metricsUrl)), 'cascade_api_retries_total');
    expect(await retries()).toBe(0);

    proxy.cut();
    const attempts = proxy.accepted();
    const request = { turlinfo: 's3://in/unreachable.tgz', iuid: 'a11ce-unreachable' };
    const refused = await post(fn.url, request);
    expect(refused.status).toBe(503);
    const reason = String(refused.body.error);
    expect(reason).toMatch(/^Kubernetes API unavailable, retry: \S/);
    expect(reason.split('\n')).toHaveLength(1);
    expect(reason.length).toBeLessThan(300);
    // The first call (read the CascadeAutoOperator) tried once and retried DEFAULT_RETRY.retries times:
    // the metric tells it exactly. The connections count more: the function's watches try again too.
    expect(await retries()).toBe(DEFAULT_RETRY.retries);
    expect(proxy.accepted() - attempts).toBeGreaterThanOrEqual(DEFAULT_RETRY.retries + 1);
    expect(await created(h)).toEqual({ runs: [], jobs: [] });
    expect(fn.child.exitCode).toBe(null);
    expect((await fetch(`${fn.url}/healthz`)).status).toBe(200);

    proxy.restore();
    expect(await retries()).toBe(DEFAULT_RETRY.retries);
    const accepted = await post(fn.url, request);
    // Answered once the run exists: its first Job follows.
    expect(accepted).toMatchObject({ status: 200, body: { run: `${SCENARIO}-a11ce`, phase: 'Pending' } });
    await waitFor(async () => (await created(h!)).jobs.length === 1, { message: 'the first Job' });
    expect(await created(h)).toEqual({ runs: [`${SCENARIO}-a11ce`], jobs: [`${SCENARIO}-grayscale-a11ce`] });
    await expect.poll(async () => (await h!.operator()).status, COUNTERS_SETTLE).toMatchObject({ active: 1 });
    expect(await retries()).toBe(DEFAULT_RETRY.retries);
  });
});
