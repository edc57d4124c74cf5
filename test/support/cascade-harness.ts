// A Cascade installation in a fresh test namespace of the real control plane:
// the CascadeAutoOperator (or a scenario file), the function as real processes
// running under its own ServiceAccount, the ApiServerSource stand-in, and a
// watch that records every Job ever created (by uid, so a Job created twice
// under one name shows).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, Watch, type V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun } from '../../shared/api/cascade-run.ts';
import type { CascadeModule } from '../../shared/api/scenario.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { startApiServerSource, type RunningSource } from '../../local/apiserver-source.ts';
import { functionKubeconfig } from '../../local/function-rbac.ts';
import { startFunction, type FunctionProcess } from '../../local/function-process.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './kube.ts';

export const SCENARIO = 'cascadeautooperator-ip';
export const OUT = 'http://minio.test:9000/output/';
const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };

export interface HarnessOptions {
  modules: CascadeModule[];
  /** Scenario from a CascadeAutoOperator (default) or from a CONFIG_PATH file. */
  from?: 'operator' | 'file';
  replicas?: number;
  env?: Record<string, string>;
  /** Run the ApiServerSource stand-in (default true). */
  source?: boolean;
}

export type Harness = Awaited<ReturnType<typeof cascadeHarness>>;

/** A reply body as JSON, or `{ text }` when it is not JSON. */
export function replyBody(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: replyBody(await res.text()) };
}

/**
 * As a broker delivers: a connection error, 429 or 5xx is retried with
 * backoff (Knative delivery's policy); any other answer is final.
 */
export async function deliver(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  let last: unknown;
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      const reply = await post(url, body, headers);
      if (reply.status !== 429 && reply.status < 500) return reply;
      last = new Error(`${reply.status} ${JSON.stringify(reply.body)}`);
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
  }
  throw last;
}

export function binaryEvent(type: string, data: unknown, id = randomUUID()) {
  return { body: data, headers: { 'ce-specversion': '1.0', 'ce-id': id, 'ce-type': type, 'ce-source': '/test' } };
}

export function structuredEvent(type: string, data: unknown, id = randomUUID()) {
  return {
    body: JSON.stringify({ specversion: '1.0', id, type, source: '/test', datacontenttype: 'application/json', data }),
    headers: { 'content-type': 'application/cloudevents+json' },
  };
}

function recordJobs(namespace: string) {
  const created = new Map<string, Map<string, V1Job>>();
  let controller: AbortController | undefined;
  const ready = new Watch(adminKubeConfig()).watch(`/apis/batch/v1/namespaces/${namespace}/jobs`, { labelSelector: LABEL_RUN }, (phase, job: V1Job) => {
    if (phase !== 'ADDED' && phase !== 'MODIFIED') return;
    const name = job.metadata?.name ?? '';
    const byUid = created.get(name) ?? new Map<string, V1Job>();
    if (!byUid.has(job.metadata?.uid ?? '')) byUid.set(job.metadata?.uid ?? '', job);
    created.set(name, byUid);
  }, () => {}).then((c) => { controller = c; });
  return { created, ready, stop: () => controller?.abort() };
}

async function scenarioSource(ns: string, opts: HarnessOptions, custom: CustomObjectsApi): Promise<Record<string, string>> {
  if (opts.from === 'file') {
    const file = join(mkdtempSync(join(tmpdir(), 'cascade-scenario-')), 'configuration.json');
    writeFileSync(file, JSON.stringify({ cascademodules: opts.modules }));
    return { CONFIG_PATH: file };
  }
  await custom.createNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascadeautooperators', body: {
    apiVersion: 'cascade.cascade.net/v1alpha1', kind: 'CascadeAutoOperator',
    metadata: { name: SCENARIO }, spec: { scenarioconfig: { cascademodules: opts.modules } },
  } });
  return { CONFIG_PATH: '/nonexistent/configuration' };
}

export async function cascadeHarness(opts: HarnessOptions) {
  const ns = await createTestNamespace('cascade-e2e');
  const custom = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const env = {
    ...(await scenarioSource(ns, opts, custom)),
    KUBECONFIG: await functionKubeconfig(adminKubeConfig(), ns), POD_NAMESPACE: ns, SCENARIO_NAME: SCENARIO, OUT_MINIO_ADDRESS: OUT, ...opts.env,
  };
  const jobs = recordJobs(ns);
  await jobs.ready;
  const fns: FunctionProcess[] = await Promise.all(Array.from({ length: opts.replicas ?? 1 }, () => startFunction(env)));
  const source: RunningSource | undefined = opts.source === false ? undefined
    : await startApiServerSource({ kc: adminKubeConfig(), namespace: ns, sink: fns.map((f) => f.url) });
  // A CRD just established answers 429 "storage is (re)initializing" for a moment.
  await waitFor(() => custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' }), { message: 'cascaderuns can be listed' });
  const getRun = (name: string) => custom.getNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns', name }) as Promise<CascadeRun>;
  return {
    ns, env, fns, jobs: jobs.created, custom,
    url: (i = 0) => fns[i]!.url,
    getRun,
    listRuns: async () => ((await custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' })) as { items: CascadeRun[] }).items,
    operator: () => custom.getNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascadeautooperators', name: SCENARIO }) as Promise<CascadeAutoOperator>,
    waitEnded: (name: string, timeoutMs = 60_000) => waitFor(async () => {
      const run = await getRun(name);
      return run.status?.notified && isTerminalPhase(run.status.phase) ? run : undefined;
    }, { timeoutMs, message: `run ${name} ended` }),
    stop: async () => {
      source?.stop();
      jobs.stop();
      await Promise.all(fns.map((f) => f.stop()));
    },
  };
}
