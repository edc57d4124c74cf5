// A Cascade installation in a fresh test namespace of the real control plane:
// the CascadeAutoOperator (or a scenario file), the function as real processes
// running under its own ServiceAccount, the Knative Broker stand-in
// (local/stand-ins/broker/) with knative/'s Triggers in front of them and its
// dead-letter sink, the ApiServerSource stand-in sending Job changes to the
// Broker, and a watch that records every Job ever created (by uid, so a Job
// created twice under one name shows). `deliver` sends CloudEvents to the
// Broker as a source would; the Broker records every attempt: a delivery that
// failed finally, a retried 5xx or an attempt without an answer, or a source
// delivery given up, fails the test at stop() unless the test says it
// injects faults. Tests of the function's own replies POST to it directly
// (`post`, `url`). It returns once each replica's first sync is done, so the
// runs a test then makes are moved by events, or by the janitor it runs.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, CustomObjectsApi, type V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun } from '../../shared/api/cascade-run.ts';
import type { CascadeModule } from '../../shared/api/scenario.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { connectionOf } from '../../local/kube.ts';
import {
  startApiServerSource,
  type RetriedAttempt,
  type RunningSource,
} from '../../local/stand-ins/apiserver-source.ts';
import { startBroker, type RunningBroker } from '../../local/stand-ins/broker/broker.ts';
import type { Attempt } from '../../local/stand-ins/broker/dispatch.ts';
import { startDeadLetterSink } from '../../local/stand-ins/broker/dead-letter-sink.ts';
import { functionKubeconfig } from '../../local/function-rbac.ts';
import { startFunction, type FunctionProcess } from '../../local/stand-ins/function-process.ts';
import { startQueueProxy, type QueueProxy } from '../../local/knative/queue-proxy/queue-proxy.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './kube.ts';
import { brokerConfig, type BrokerMode } from './broker-config.ts';
import { tempDir } from '../../local/temp-dir.ts';
import { synced } from './first-sync.ts';

export const SCENARIO = 'cascadeautooperator-ip';

/**
 * How long a test waits for the operator's counters to show the runs' states: they are written after them
 * (counts-writer.ts), by a process that may first wait for a killed holder's Lease to run out.
 */
export const COUNTERS_SETTLE = { timeout: 60_000, interval: 200 };
export const OUT = 'http://minio.test:9000/output/';
const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };

export interface HarnessOptions {
  modules: CascadeModule[];
  /** Scenario from a CascadeAutoOperator (default) or from a CONFIG_PATH file. */
  from?: 'operator' | 'file';
  /** More of the CascadeAutoOperator's spec (e.g. maxConcurrentRuns). */
  operatorSpec?: Record<string, unknown>;
  replicas?: number;
  env?: Record<string, string>;
  /** Run the ApiServerSource stand-in (default true); 2 runs two, so that every Job change reaches the Broker twice. */
  source?: boolean | 2;
  /**
   * The test injects faults (stops processes, cuts connections): retried 5xx
   * and failed connections are expected, and stop() does not fail on them.
   */
  faults?: boolean;
  /** Delivery attempts the test expects to fail and be retried, which stop() does not count as trouble. */
  tolerated?: (attempt: Attempt) => boolean;
  /** How to start each replica (default: the function from source). */
  start?: (env: Record<string, string>) => Promise<FunctionProcess>;
  /**
   * Knative's queue-proxy in front of the function (one replica only: its
   * fixed ports allow one per machine): url(0) and the deliveries go through
   * it. containerConcurrency replaces knative/service.yaml's.
   */
  queueProxy?: { containerConcurrency?: number };
  /**
   * The Broker's ingress. 'sync' (default): it answers once every Trigger's
   * delivery ended, as Knative's default Broker. 'async': 202 before it
   * delivers, as the local cluster's async-handler annotation on 1.17+.
   */
  broker?: BrokerMode;
  /** Multiplies the Triggers' backoff waits (default TEST_BACKOFF_SCALE); 1 is Knative's schedule. */
  backoffScale?: number;
}

/** Every retried attempt of a source's delivery to its sink, and every delivery given up. */
export interface DeliveryLog {
  retried: RetriedAttempt[];
  givenUp: string[];
}

export const newDeliveryLog = (): DeliveryLog => ({ retried: [], givenUp: [] });

/** What a healthy function never answers: a 5xx, or no answer at all (429 is the rate limit, retried as a broker does). */
export const serverErrors = (log: DeliveryLog): string[] =>
  log.retried.filter((a) => a.status === 0 || a.status >= 500).map((a) => `${a.status} ${a.what}: ${a.detail}`);

export type Harness = Awaited<ReturnType<typeof cascadeHarness>>;

/** A reply body as JSON, or `{ text }` when it is not JSON. */
export function replyBody(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: replyBody(await res.text()) };
}

/** Backoff waits of the Broker stand-in in the tests: knative/'s (1, 2, 4, 8, 16 s) × 0.05. */
export const TEST_BACKOFF_SCALE = 0.05;

/** What the Broker met that a healthy function never causes: a delivery that failed finally, a retried 5xx or no answer. */
export function brokerTrouble(broker: RunningBroker, tolerated: (a: Attempt) => boolean = () => false): string[] {
  const failed = broker.failures.map(
    (f) =>
      `${f.event.attributes.type} ${f.event.attributes.id} to ${f.trigger}: failed after ${f.attempts} attempt(s) with ${f.status} ${f.reason}`,
  );
  const retried = broker.attempts
    .filter((a) => a.outcome === 'retry' && (a.status === undefined || a.status >= 500) && !tolerated(a))
    .map((a) => `${a.type} ${a.id} to ${a.route}, attempt ${a.attempt}: ${a.status ?? 'no answer'} ${a.detail ?? ''}`);
  return [...failed, ...retried];
}

/** A CloudEvent for the Broker's ingress, in binary mode. */
export async function sendEvent(
  brokerUrl: string,
  type: string,
  data: unknown,
  id: string = randomUUID(),
): Promise<number> {
  const e = binaryEvent(type, data, id);
  const res = await fetch(brokerUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...e.headers },
    body: JSON.stringify(e.body),
  });
  await res.arrayBuffer();
  return res.status;
}

export function binaryEvent(type: string, data: unknown, id: string = randomUUID()) {
  return { body: data, headers: { 'ce-specversion': '1.0', 'ce-id': id, 'ce-type': type, 'ce-source': '/test' } };
}

export function structuredEvent(type: string, data: unknown, id = randomUUID()) {
  return {
    body: JSON.stringify({ specversion: '1.0', id, type, source: '/test', datacontenttype: 'application/json', data }),
    headers: { 'content-type': 'application/cloudevents+json' },
  };
}

/**
 * Every Job ever created in the namespace, by name and uid, from the one
 * informer: a watch opened again from the last resourceVersion seen whenever
 * it ends, so nothing in between is missed. When the API server no longer has
 * that history (410 Gone), it lists again and counts a gap: a Job created and
 * deleted in between does not show.
 */
function recordJobs(namespace: string) {
  const created = new Map<string, Map<string, V1Job>>();
  const record = (job: V1Job) => {
    const name = job.metadata?.name ?? '';
    const byUid = created.get(name) ?? new Map<string, V1Job>();
    if (!byUid.has(job.metadata?.uid ?? '')) byUid.set(job.metadata?.uid ?? '', job);
    created.set(name, byUid);
  };
  const i = inform({
    transport: httpsTransport(connectionOf(adminKubeConfig()), `/apis/batch/v1/namespaces/${namespace}/jobs`, {
      labelSelector: LABEL_RUN,
    }),
    on: (change, job) => change !== 'DELETED' && record(job as V1Job),
  });
  return { created, ready: i.synced, gaps: () => Math.max(0, i.lists() - 1), stop: () => i.stop() };
}

async function scenarioSource(
  ns: string,
  opts: HarnessOptions,
  custom: CustomObjectsApi,
): Promise<Record<string, string>> {
  if (opts.from === 'file') {
    const file = join(tempDir('cascade-scenario-'), 'configuration.json');
    writeFileSync(file, JSON.stringify({ cascademodules: opts.modules }));
    return { CONFIG_PATH: file };
  }
  await createOperator(custom, ns, SCENARIO, {
    scenarioconfig: { cascademodules: opts.modules },
    ...opts.operatorSpec,
  });
  return { CONFIG_PATH: '/nonexistent/configuration' };
}

/** Creates CascadeAutoOperator `name` in `namespace` with `spec`. */
export async function createOperator(
  custom: CustomObjectsApi,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...G,
    namespace,
    plural: 'cascadeautooperators',
    body: { apiVersion: 'cascade.cascade.net/v1alpha1', kind: 'CascadeAutoOperator', metadata: { name }, spec },
  });
}

export async function cascadeHarness(opts: HarnessOptions) {
  const ns = await createTestNamespace('cascade-e2e');
  const custom = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const env = {
    ...(await scenarioSource(ns, opts, custom)),
    KUBECONFIG: await functionKubeconfig(adminKubeConfig(), ns),
    POD_NAMESPACE: ns,
    SCENARIO_NAME: SCENARIO,
    OUT_MINIO_ADDRESS: OUT,
    ...opts.env,
  };
  const jobs = recordJobs(ns);
  await jobs.ready;
  const fns: FunctionProcess[] = await Promise.all(
    Array.from({ length: opts.replicas ?? 1 }, () => (opts.start ?? startFunction)(env)),
  );
  if (opts.queueProxy && fns.length !== 1) throw new Error('queue-proxy fronts one replica');
  // Each replica's first sync is done before the test sets anything up: it moves only what it listed.
  await Promise.all(fns.map((f) => synced(f))).catch(async (error: unknown) => {
    jobs.stop();
    await Promise.all(fns.map((f) => f.stop('SIGKILL')));
    throw error;
  });
  const queueProxy: QueueProxy | undefined = opts.queueProxy
    ? await startQueueProxy({ userPort: Number(new URL(fns[0]!.url).port), namespace: ns, ...opts.queueProxy })
    : undefined;
  const urls = fns.map((f, i) => (i === 0 && queueProxy ? queueProxy.url : f.url));
  const deadLetters = await startDeadLetterSink();
  // The Broker reaches replica 0 through queue-proxy when it runs, as in a pod.
  const broker = await startBroker({
    namespace: ns,
    backoffScale: opts.backoffScale ?? TEST_BACKOFF_SCALE,
    config: brokerConfig(opts.broker ?? 'sync'),
    addresses: { 'Service/cascade': urls, 'Service/cascade-dead-letters': [deadLetters.url] },
  });
  // A CRD just established answers 429 "storage is (re)initializing" for a moment: the sources list CascadeRuns as they start.
  await waitFor(() => custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' }), {
    message: 'cascaderuns can be listed',
  });
  const deliveries = newDeliveryLog();
  let stopping = false;
  const sources: RunningSource[] =
    opts.source === false
      ? []
      : await Promise.all(
          Array.from({ length: opts.source === 2 ? 2 : 1 }, () =>
            startApiServerSource({
              kc: adminKubeConfig(),
              namespace: ns,
              sink: broker.url,
              onRetry: (a) => {
                if (!stopping) deliveries.retried.push(a);
              },
              onError: (e) => {
                if (!stopping) deliveries.givenUp.push(`ApiServerSource: ${String(e)}`);
              },
            }),
          ),
        );
  const getRun = (name: string) =>
    custom.getNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns', name }) as Promise<CascadeRun>;
  return {
    ns,
    env,
    fns,
    queueProxy,
    jobs: jobs.created,
    custom,
    broker,
    deadLetters,
    sources,
    /** The sources' deliveries to the Broker's ingress. */
    deliveries,
    /** Times the Job record lost the API server's history (see recordJobs). */
    jobRecordGaps: jobs.gaps,
    /** Replica i's URL (queue-proxy's for replica 0 when it runs). */
    url: (i = 0) => urls[i]!,
    /** Sends a CloudEvent to the Broker (its ingress answers 202); the Broker delivers it to the replicas in turn. */
    deliver: (type: string, data: unknown, id?: string) => sendEvent(broker.url, type, data, id),
    getRun,
    /**
     * Waits until the watch has recorded a Job under each of `names` (it lags
     * the API server), then returns every Job it recorded. A Job created in
     * the same breath as one of them may still be on its way: assert absences
     * from the API server, not from this record.
     */
    recorded: (names: string[]) =>
      waitFor(() => names.every((n) => jobs.created.has(n)) && jobs.created, {
        message: `Jobs recorded: ${names.join(', ')}`,
      }),
    listRuns: async () =>
      (
        (await custom.listNamespacedCustomObject({ ...G, namespace: ns, plural: 'cascaderuns' })) as {
          items: CascadeRun[];
        }
      ).items,
    operator: () =>
      custom.getNamespacedCustomObject({
        ...G,
        namespace: ns,
        plural: 'cascadeautooperators',
        name: SCENARIO,
      }) as Promise<CascadeAutoOperator>,
    /**
     * Waits for what follows a run request's reply (docs/contract.md): the
     * run's first decision, and its first Job unless it is queued or ended.
     * A test that reads state right after a reply waits for this first.
     */
    waitStarted: (name: string) =>
      waitFor(
        async () => {
          const phase = (await getRun(name)).status?.phase;
          if (!phase) return undefined;
          if (phase === 'Queued' || isTerminalPhase(phase)) return phase;
          const selector = `${LABEL_RUN}=${name}`;
          const listed = await batch.listNamespacedJob({ namespace: ns, labelSelector: selector });
          return listed.items.length > 0 && phase;
        },
        { message: `run ${name} started` },
      ),
    waitEnded: (name: string, timeoutMs = 60_000) =>
      waitFor(
        async () => {
          const run = await getRun(name);
          return run.status?.notified && isTerminalPhase(run.status.phase) ? run : undefined;
        },
        { timeoutMs, message: `run ${name} ended` },
      ),
    /**
     * Stops everything; throws (failing the test) on a delivery that failed
     * finally, a retried 5xx or no answer, or a source delivery given up, unless `faults`.
     */
    stop: async () => {
      if (stopping) return;
      stopping = true;
      for (const source of sources) source.stop();
      jobs.stop();
      const trouble = brokerTrouble(broker, opts.tolerated);
      await broker.stop();
      await deadLetters.stop();
      await Promise.all([...fns.map((f) => f.stop()), queueProxy?.stop('SIGKILL')]);
      const problems = opts.faults
        ? []
        : [...trouble, ...serverErrors(deliveries), ...deliveries.givenUp.map((g) => `given up: ${g}`)];
      if (problems.length > 0)
        throw new Error(`deliveries met trouble the test did not inject:\n${problems.slice(0, 20).join('\n')}`);
    },
  };
}

/**
 * Options of a test that starts a queue-proxy: there is one per machine
 * (local/knative/queue-proxy/), so it may first wait, up to its lock wait (600 s), for
 * the one another test file started to drain and exit.
 */
export const QUEUE_PROXY_TEST = { timeout: 900_000 };
