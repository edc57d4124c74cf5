// A Cascade installation for the benchmarks, as the cluster tests make one: a
// fresh namespace, the function's RBAC and ServiceAccount kubeconfig, the
// CascadeAutoOperator holding the scenario, the function as a real process
// (faas-js-runtime), the ApiServerSource stand-in posting Job changes to it,
// and the recorder watching Jobs and runs.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { imageModule } from '../local/kwok-modules.ts';
import { startApiServerSource, type RunningSource } from '../local/apiserver-source.ts';
import { startFunction, type FunctionProcess } from '../local/function-process.ts';
import { functionKubeconfig } from '../local/function-rbac.ts';
import { createNamespace, deleteNamespace, waitFor } from '../local/kube.ts';
import { startRecorder, type Recorder } from './recorder.ts';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND } from '../shared/api/group.ts';

export const SCENARIO = 'cascadeautooperator-ip';
const G = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascadeautooperators' };

/** `count` modules m0…m(count-1), each pod running `delayMs` under kwok; `stuck` pods are never scheduled. */
export function scenario(count: number, delayMs: number, stuck = false): CascadeModule[] {
  return Array.from({ length: count }, (_, i) => {
    const m = imageModule(`m${i}`, { step: String(i) }, { delayMs });
    if (stuck) m.template.spec = { ...m.template.spec, nodeSelector: { 'cascade.cascade.net/bench': 'nowhere' } };
    return m;
  });
}

export interface Install {
  ns: string;
  env: Record<string, string>;
  fn: FunctionProcess;
  recorder: Recorder;
  custom: CustomObjectsApi;
  setScenario(modules: CascadeModule[]): Promise<void>;
  /** POSTs a plain JSON body to the function; resolves to the status and the parsed reply. */
  post(body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Starts the function again (same namespace and settings). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: res.status, body: { text } };
  }
}

/** Extra environment of the function: the token bucket opened wide (the benchmarks measure the engine, not the limiter). */
export const BENCH_FUNCTION_ENV = { CASCADE_RATE_LIMIT: '1000000', CASCADE_RATE_BURST: '1000000', LOG_LEVEL: 'error' };

const benchNamespaces = new Set<string>();

/** Deletes every namespace `install` made. */
export async function deleteBenchNamespaces(kc: KubeConfig): Promise<void> {
  await Promise.all([...benchNamespaces].map((ns) => deleteNamespace(kc, ns)));
  benchNamespaces.clear();
}

export async function install(kc: KubeConfig, modules: CascadeModule[], prefix = 'cascade-bench', extraEnv: Record<string, string> = {}): Promise<Install> {
  const ns = await createNamespace(kc, prefix);
  benchNamespaces.add(ns);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({ ...G, namespace: ns, body: {
    apiVersion: API_VERSION, kind: CASCADE_AUTO_OPERATOR_KIND,
    metadata: { name: SCENARIO }, spec: { scenarioconfig: { cascademodules: modules } },
  } });
  const env = {
    KUBECONFIG: await functionKubeconfig(kc, ns), POD_NAMESPACE: ns, SCENARIO_NAME: SCENARIO,
    OUT_MINIO_ADDRESS: 'http://minio.bench:9000/output/', CONFIG_PATH: '/nonexistent/configuration', ...BENCH_FUNCTION_ENV, ...extraEnv,
  };
  const recorder = await startRecorder(kc, ns);
  // A CRD just established answers 429 "storage is (re)initializing" for a moment.
  await waitFor(() => custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' }), { message: 'cascaderuns can be listed' });
  let fn = await startFunction(env);
  let source: RunningSource = await startApiServerSource({ kc, namespace: ns, sink: fn.url });
  return {
    ns, env, recorder, custom,
    get fn() { return fn; },
    async setScenario(next) {
      // The function writes the operator's counters meanwhile: retry on 409.
      for (let attempt = 0; ; attempt++) {
        const op = (await custom.getNamespacedCustomObject({ ...G, namespace: ns, name: SCENARIO })) as { spec: Record<string, unknown> };
        try {
          await custom.replaceNamespacedCustomObject({ ...G, namespace: ns, name: SCENARIO, body: { ...op, spec: { ...op.spec, scenarioconfig: { cascademodules: next } } } });
          return;
        } catch (error) {
          if ((error as { code?: number }).code !== 409 || attempt >= 20) throw error;
        }
      }
    },
    post: (body) => postJson(fn.url, body),
    async restart() {
      source.stop();
      await fn.stop();
      fn = await startFunction(env);
      source = await startApiServerSource({ kc, namespace: ns, sink: fn.url });
    },
    async stop() {
      source.stop();
      recorder.stop();
      await fn.stop();
    },
  };
}

let counter = 0;
/**
 * A run request with a fresh iuid. The run's name takes the iuid's first five
 * characters (as the Go controller did), so those are unique per run: a clash
 * would cost extra requests for the hashed fallback name.
 */
export function runRequest(tag: string): { turlinfo: string; iuid: string; oname: string; sname: string } {
  counter++;
  const prefix = (0x10000 + counter).toString(16);
  return { turlinfo: `s3://in/${tag}-${counter}.tgz`, iuid: `${prefix}-${tag}-${process.pid}`, oname: 'bench', sname: tag };
}
