// A Cascade installation for the benchmarks, as the cluster tests make one:
// - a fresh namespace;
// - the function's RBAC and ServiceAccount kubeconfig;
// - the CascadeAutoOperator holding the scenario;
// - the function as a real process (faas-js-runtime) behind the Knative Broker
//   stand-in (local/stand-ins/broker/), with knative/'s Triggers and delivery settings
//   and waits unscaled, and its dead-letter sink;
// - the ApiServerSource stand-in sending Job changes to the Broker;
// - the recorder watching Jobs and runs.
// Run requests and module results go to the Broker as CloudEvents, as on a cluster.
import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { imageModule } from '../test/support/kwok-modules.ts';
import { startApiServerSource, type RunningSource } from '../local/stand-ins/apiserver-source.ts';
import { startBroker, type RunningBroker } from '../local/stand-ins/broker/broker.ts';
import { startDeadLetterSink } from '../local/stand-ins/broker/dead-letter-sink.ts';
import type { Attempt } from '../local/stand-ins/broker/dispatch.ts';
import { MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import { runName } from '../shared/names.ts';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import {
  apiServerSourceIdentity,
  functionKubeconfig,
  janitorKubeconfig,
  serviceAccountUser,
} from '../local/function-rbac.ts';
import { createNamespace, deleteNamespace, waitFor } from '../local/kube.ts';
import { benchFunction } from './entry.ts';
import { startQueueProxy } from '../local/knative/queue-proxy/queue-proxy.ts';
import { startRecorder, type Recorder } from './recorder.ts';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND } from '../shared/api/group.ts';

export const SCENARIO = 'cascadeautooperator-ip';
/** The user of the local control plane's admin client certificate (local/cluster/certs.ts): the bench's own driver and recorder. */
const ADMIN_USER = 'cascade-admin';
const G = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascadeautooperators' };

/**
 * `count` modules m0…m(count-1), each pod running `delayMs` under kwok;
 * `stuck` pods are never scheduled (`true`), or wait for a node with the
 * labels it gives.
 */
export function scenario(
  count: number,
  delayMs: number,
  stuck: boolean | Record<string, string> = false,
): CascadeModule[] {
  const nodeSelector = stuck === true ? { 'cascade.cascade.net/bench': 'nowhere' } : stuck || undefined;
  return Array.from({ length: count }, (_, i) => {
    const m = imageModule(`m${i}`, { step: String(i) }, { delayMs });
    if (nodeSelector) m.template.spec = { ...m.template.spec, nodeSelector };
    return m;
  });
}

export interface Install {
  ns: string;
  env: Record<string, string>;
  fn: FunctionProcess;
  recorder: Recorder;
  custom: CustomObjectsApi;
  broker: RunningBroker;
  /** A kubeconfig file of the janitor's ServiceAccount, for sweeps made by the bench. */
  janitorKubeconfig: string;
  /** The queue-proxy's process, when it fronts the function (InstallOptions.queueProxy). */
  queueProxyPid?: number | undefined;
  /** Each client's label → the user it authenticates as (the audit log tells them apart by it). */
  identities: Record<string, string>;
  setScenario(modules: CascadeModule[]): Promise<void>;
  /**
   * Sends a run request or a module result to the Broker as a CloudEvent and
   * waits until the Broker is done with it. It returns the function's status to
   * the last attempt, that attempt's time (the function's reply as the Broker
   * saw it), how many attempts, and the run.
   */
  send(body: RunRequestBody | ModuleResultBody): Promise<Delivered>;
  /** Changes the ApiServerSource stand-in sent the Broker so far, across restarts. */
  sourceDeliveries(): number;
  /** Starts the function again (same namespace and settings). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export type RunRequestBody = ReturnType<typeof runRequest>;
export interface ModuleResultBody {
  runname: string;
  modulename: string;
  moduleresult: string;
}
export interface Delivered {
  status: number | undefined;
  replyMs: number;
  attempts: number;
  run: string;
}

/** The run a request names: the Go controller's name from the iuid (runRequest keeps the first five characters unique), or the result's runname. */
function runOf(body: RunRequestBody | ModuleResultBody): string {
  if ('runname' in body) return body.runname;
  const name = runName(SCENARIO, body.iuid);
  if (!name.ok) throw new Error(name.reason);
  return name.name;
}

/**
 * One CloudEvent to the Broker's ingress. With thousands of senders at once,
 * the ingress may reset or refuse a connection before it answers. The event is
 * then tried again with the same event id, as an event source does. So a copy
 * the Broker did take is one event to the function, which deduplicates by id
 * and by content.
 */
async function postToIngress(url: string, headers: Record<string, string>, body: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body });
      await res.arrayBuffer();
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((r) => setTimeout(r, 20 * attempt));
      continue;
    }
    if (res.status !== 202) throw new Error(`the Broker answered ${res.status}`);
    return;
  }
}

/** Sends CloudEvents to the Broker and resolves each when its delivery to the function ended (delivered or failed). */
function sender(brokerUrl: () => string) {
  const waiting = new Map<string, (a: Attempt) => void>();
  const onAttempt = (a: Attempt) => {
    if (a.outcome !== 'retry' && !a.route.endsWith('dead-letter sink')) waiting.get(a.id)?.(a);
  };
  const send = async (body: RunRequestBody | ModuleResultBody): Promise<Delivered> => {
    const id = randomUUID();
    const type = 'runname' in body ? MODULE_FINISHED : RUN_REQUESTED;
    const done = new Promise<Attempt>((resolve) => waiting.set(id, resolve));
    try {
      await postToIngress(
        brokerUrl(),
        {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': id,
          'ce-source': '/bench',
          'ce-type': type,
        },
        JSON.stringify(body),
      );
    } catch (error) {
      waiting.delete(id);
      throw error;
    }
    const last = await done;
    waiting.delete(id);
    return { status: last.status, replyMs: last.ms ?? Number.NaN, attempts: last.attempt, run: runOf(body) };
  };
  return { send, onAttempt };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
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

/** BENCH_BROKER=async: the Broker answers before it delivers (knative/broker.yaml's annotation); else synchronous, Knative's default Broker. */
export function brokerIsAsync(): boolean {
  return process.env.BENCH_BROKER === 'async';
}

export interface InstallOptions {
  /**
   * Front the function with Knative's queue-proxy (local/knative/queue-proxy/, built
   * from Knative Serving; containerConcurrency from knative/service.yaml), as
   * a deployed function is: the Broker delivers to it, and it holds requests
   * beyond containerConcurrency. One per machine (a lock).
   */
  queueProxy?: boolean;
}

export async function install(
  kc: KubeConfig,
  modules: CascadeModule[],
  prefix = 'cascade-bench',
  extraEnv: Record<string, string> = {},
  options: InstallOptions = {},
): Promise<Install> {
  const ns = await createNamespace(kc, prefix);
  benchNamespaces.add(ns);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    ...G,
    namespace: ns,
    body: {
      apiVersion: API_VERSION,
      kind: CASCADE_AUTO_OPERATOR_KIND,
      metadata: { name: SCENARIO },
      spec: { scenarioconfig: { cascademodules: modules } },
    },
  });
  const env = {
    KUBECONFIG: await functionKubeconfig(kc, ns),
    POD_NAMESPACE: ns,
    SCENARIO_NAME: SCENARIO,
    OUT_MINIO_ADDRESS: 'http://minio.bench:9000/output/',
    CONFIG_PATH: '/nonexistent/configuration',
    ...BENCH_FUNCTION_ENV,
    ...extraEnv,
  };
  const recorder = await startRecorder(kc, ns);
  // A CRD just established answers 429 "storage is (re)initializing" for a moment.
  await waitFor(() => custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' }), {
    message: 'cascaderuns can be listed',
  });
  let fn = await startFunction(env, benchFunction());
  const queueProxy = options.queueProxy
    ? await startQueueProxy({ userPort: Number(new URL(fn.url).port), namespace: ns })
    : undefined;
  const deadLetters = await startDeadLetterSink();
  let brokerUrl = '';
  const out = sender(() => brokerUrl);
  const broker = await startBroker({
    namespace: ns,
    onAttempt: out.onAttempt,
    async: brokerIsAsync(),
    addresses: { 'Service/cascade': [queueProxy?.url ?? fn.url], 'Service/cascade-dead-letters': [deadLetters.url] },
  });
  brokerUrl = broker.url;
  const sourceKc = await apiServerSourceIdentity(kc, ns);
  let source: RunningSource = await startApiServerSource({ kc: sourceKc, namespace: ns, sink: broker.url });
  let earlierDeliveries = 0;
  const identities = {
    function: serviceAccountUser(ns, 'cascade-function'),
    janitor: serviceAccountUser(ns, 'cascade-janitor'),
    apiserversource: serviceAccountUser(ns, 'cascade-apiserversource'),
    bench: ADMIN_USER,
    'job-controller': 'system:serviceaccount:kube-system:job-controller',
  };
  return {
    ns,
    env,
    recorder,
    custom,
    broker,
    identities,
    janitorKubeconfig: await janitorKubeconfig(kc, ns),
    queueProxyPid: queueProxy?.child.pid,
    get fn() {
      return fn;
    },
    async setScenario(next) {
      // The function writes the operator's counters meanwhile: retry on 409.
      for (let attempt = 0; ; attempt++) {
        const op = (await custom.getNamespacedCustomObject({ ...G, namespace: ns, name: SCENARIO })) as {
          spec: Record<string, unknown>;
        };
        try {
          await custom.replaceNamespacedCustomObject({
            ...G,
            namespace: ns,
            name: SCENARIO,
            body: { ...op, spec: { ...op.spec, scenarioconfig: { cascademodules: next } } },
          });
          return;
        } catch (error) {
          if ((error as { code?: number }).code !== 409 || attempt >= 20) throw error;
        }
      }
    },
    send: out.send,
    sourceDeliveries: () => earlierDeliveries + source.delivered(),
    async restart() {
      if (queueProxy) throw new Error('restart() is not supported behind the queue-proxy');
      earlierDeliveries += source.delivered();
      source.stop();
      await fn.stop();
      fn = await startFunction(env, benchFunction());
      broker.setAddresses('Service/cascade', [fn.url]);
      source = await startApiServerSource({ kc: sourceKc, namespace: ns, sink: broker.url });
    },
    async stop() {
      source.stop();
      recorder.stop();
      await broker.stop();
      await deadLetters.stop();
      await fn.stop();
      await queueProxy?.stop();
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
  return {
    turlinfo: `s3://in/${tag}-${counter}.tgz`,
    iuid: `${prefix}-${tag}-${process.pid}`,
    oname: 'bench',
    sname: tag,
  };
}
