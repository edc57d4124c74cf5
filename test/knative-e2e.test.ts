// Cascade end to end on real Knative: Serving v0.50.0 with Traefik and
// Eventing v0.50.0 as pods on the real node, and all of knative/ applied with
// `kubectl apply -k` of an overlay that changes only the images, the
// namespace, its annotations and the scenario (test/support/knative-cascade.ts).
// The namespace's annotations put every pod of it on the real node, the
// module Jobs' too: the scenario's modules name no node. Every request goes
// to the real Broker's ingress, as a client in the cluster sends it.
import { randomBytes, randomUUID } from 'node:crypto';
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Container, type V1Job } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recreateBroker } from '../local/knative/cascade-deploy.ts';
import { imageReference } from '../local/knative/eventing/components.ts';
import { servicePods } from '../local/knative/serving/cascade-service.ts';
import { apiClient } from '../local/kube.ts';
import { privateOnHost } from './support/host-network.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { namespacePlacedModule } from '../local/node/real-modules.ts';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { MODULE_FINISHED } from '../shared/api/events.ts';
import { BINDING_EXCLUDE_LABEL } from '../shared/core/module-sink.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import type { DeadLetter } from '../functions/dead-letters/record.ts';
import {
  brokerIngressUrl,
  deployOnRealNode,
  displayedEvents,
  deploymentLog,
  postEvent,
  readKnative,
  waitDeploymentsAvailable,
  waitKnativeReady,
} from './support/knative-eventing.ts';
import {
  ended,
  recordJobs,
  requestRun,
  runOf,
  suspendJanitor,
  useKnativeCascade,
  waitCascadeReady,
  waitRun,
  type JobRecord,
} from './support/knative-cascade.ts';
import { createOperator } from './support/cascade-harness.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

const module = namespacePlacedModule;

/** The seed's success scenario (/work/shared/reference/scenarios/test_success.json), its modules real containers. */
const SUCCESS = {
  cascademodules: [
    module('grayscale', { foo: 'bar', spamm: 'eggs', test1: 'test2' }),
    module('binarization', { eggs: 'spamm', test2: 'test1', thresh: '128' }),
    module('diff', { bar: 'foo', eggs: 'spamm', test2: 'test1' }),
  ],
};

/** The seed's fail-first scenario: its second module exits 1. */
const FAIL_FIRST = [
  module('grayscale', { foo: 'bar', spamm: 'eggs', test1: 'test2' }),
  module('fail', { eggs: 'spamm', test2: 'test1', thresh: '128', exitcode: '1' }),
  module('diff', { bar: 'foo', eggs: 'spamm', test2: 'test1' }),
];

/** A module that runs 75 s, time enough for the function to scale to zero meanwhile. */
const LONG = [module('long', { lines: '25', interval: '3' })];

/**
 * A first module that runs 10 min, unless its step's result comes first: the
 * forged Job event's test posts it once the event is refused. So the Job still
 * runs when the event is handled, however late the Broker delivers it.
 */
const SLOW = [module('slow', { lines: '300', interval: '2' }), module('diff', {})];

/**
 * A module that posts its own result first, as a module reports one: a
 * CloudEvent to the K_SINK the function gives its Job,
 * naming its run from its pod's label. Then it runs 60 s more.
 */
function postingModule(name: string, result: string): CascadeModule {
  const m = module(name, { result, lines: '30', interval: '2' });
  const [first, ...rest] = m.template.spec!.containers;
  const env = [
    { name: 'RUNNAME', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${LABEL_RUN}']` } } },
    { name: 'MODULENAME', value: name },
  ];
  const spec = { ...m.template.spec!, containers: [{ ...first!, env }, ...rest] };
  return { ...m, template: { ...m.template, spec } };
}

/** Its first module's step ends by the result it posts, 60 s before its Job would. */
const POSTING = [postingModule('poster', 'success'), module('diff', {})];

const OUT = 'http://minio-service:9000/output/';
const RUN_REQUESTED = 'net.cascade.run.requested.v1';

const namespace = useKnativeCascade({
  scenario: SUCCESS,
  // scale to zero in seconds (the Serving test's settings)
  autoscaler: { 'stable-window': '6s', 'scale-to-zero-grace-period': '6s' },
});

let extrasReady: Promise<void> | undefined;
/** The test's own parts: the scenarios as CascadeAutoOperators, and a display of the run-end events. */
function extras(): Promise<void> {
  extrasReady ??= (async () => {
    const ns = namespace();
    const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
    for (const [name, modules] of [
      ['fail-first', FAIL_FIRST],
      ['slow', SLOW],
      ['long', LONG],
      ['posting', POSTING],
    ] as const) {
      await createOperator(custom, ns, name, { scenarioconfig: { cascademodules: modules } });
    }
    await deployOnRealNode(ns, 'run-ends', { name: '', image: imageReference('event_display') });
    for (const end of ['succeeded', 'failed']) {
      await custom.createNamespacedCustomObject({
        group: 'eventing.knative.dev',
        version: 'v1',
        namespace: ns,
        plural: 'triggers',
        body: {
          apiVersion: 'eventing.knative.dev/v1',
          kind: 'Trigger',
          metadata: { name: `run-${end}` },
          spec: {
            broker: 'default',
            filter: { attributes: { type: `net.cascade.run.${end}.v1` } },
            subscriber: { ref: { apiVersion: 'v1', kind: 'Service', name: 'run-ends' } },
          },
        },
      });
      await waitKnativeReady(ns, 'eventing.knative.dev', 'v1', 'triggers', `run-${end}`);
    }
    await waitDeploymentsAvailable(ns, ['run-ends']);
  })();
  return extrasReady;
}

/** The run-end events the Broker delivered to the run-ends display, for `run`. */
async function runEnds(run: string): Promise<Record<string, string>[]> {
  return displayedEvents(await deploymentLog(namespace(), 'run-ends')).filter((e) => e.subject === run);
}

/** Each hand-off's time in the run's order: the next Job first seen after the previous one first seen Complete, in ms. */
function stepLatencies(run: CascadeRun, jobs: Map<string, JobRecord>): number[] {
  const records = (run.status?.modules ?? []).map((m) => jobs.get(m.jobName!)!);
  return records.slice(1).map((next, i) => next.seen - records[i]!.completeSeen!);
}

/** What `f` resolves to, and the Jobs recorded meanwhile. */
async function recordingJobs<T>(f: () => Promise<T>): Promise<[T, Map<string, JobRecord>]> {
  const recorder = recordJobs(namespace());
  try {
    await recorder.synced;
    const result = await f();
    return [result, recorder.stop()];
  } catch (error) {
    recorder.stop();
    throw error;
  }
}

async function functionPods() {
  return (await servicePods(adminKubeconfigPath(), namespace(), 'cascade')).filter(
    (p) => !p.metadata?.deletionTimestamp,
  );
}

async function succeeds(scenario?: string): Promise<CascadeRun> {
  const iuid = await requestRun(namespace(), scenario);
  const run = await waitRun(namespace(), iuid, ended, 'ended');
  expect(run.status?.phase).toBe('Succeeded');
  return run;
}

/** The Job skips Eventing's SinkBinding webhook and its first container has K_SINK `url` once (ADR 0008). */
function expectSinkFromFunction(job: V1Job | undefined, url: string | undefined): void {
  expect(job?.metadata?.labels?.[BINDING_EXCLUDE_LABEL]).toBe('true');
  const sinks = job?.spec?.template.spec?.containers[0]?.env?.filter((e) => e.name === 'K_SINK');
  expect(sinks).toEqual([{ name: 'K_SINK', value: url }]);
}

describe('Cascade on real Knative Serving and Eventing, deployed from knative/', () => {
  it("every object of knative/ is Ready under Knative's controllers, and every pod of its namespace is on the real node", async () => {
    const ns = namespace();
    await waitCascadeReady(ns);
    // the SinkBinding gave the function's template K_SINK, the Broker's address, past Serving's webhook
    const broker = await readKnative(ns, 'eventing.knative.dev', 'v1', 'brokers', 'default');
    const service = await readKnative(ns, 'serving.knative.dev', 'v1', 'services', 'cascade');
    const template = service.spec?.template as { spec: { containers: V1Container[] } };
    const fn = template.spec.containers.find((c) => c.name === 'function');
    expect(fn?.env?.find((e) => e.name === 'K_SINK')?.value).toBe(broker.status?.address?.url);
    const pods = await apiClient(adminKubeConfig(), CoreV1Api).listNamespacedPod({ namespace: ns });
    expect(pods.items.length).toBeGreaterThanOrEqual(2);
    for (const p of pods.items)
      expect([p.metadata?.name, p.spec?.nodeName]).toEqual([p.metadata?.name, REAL_NODE.name]);
    // the adapter of the ApiServerSource among them
    expect(pods.items.some((p) => p.metadata?.labels?.['eventing.knative.dev/sourceName'] === 'cascade-jobs')).toBe(
      true,
    );
    // Knative's Services and pods live in the node's network namespace, none of them in the machine's
    expect(privateOnHost()).toEqual([]);
  });

  it("a run request through the Broker runs the success scenario's real containers to Succeeded, and its run-end event reaches K_SINK", async () => {
    await extras();
    const [run, jobs] = await recordingJobs(succeeds);
    const iuid = run.spec.pid;
    expect(run.status).toMatchObject({ info: `${OUT}cascadeautooperator-ip/${iuid}/${iuid}-final.zip` });
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
    const broker = await readKnative(namespace(), 'eventing.knative.dev', 'v1', 'brokers', 'default');
    for (const m of run.status!.modules!) {
      // each module Job got the Broker as K_SINK from the function, skipping Eventing's webhook (ADR 0008),
      // and its pod ran on the real node
      const record = jobs.get(m.jobName!);
      expectSinkFromFunction(record?.job, broker.status?.address?.url);
      expect(record?.node).toBe(REAL_NODE.name);
    }
    const name = run.metadata.name!;
    const [end] = await waitFor(async () => (await runEnds(name)).length > 0 && runEnds(name), {
      timeoutMs: 60_000,
      intervalMs: 1000,
      message: `the run-end event of ${name} displayed`,
    });
    expect(end).toMatchObject({ type: 'net.cascade.run.succeeded.v1', id: `${run.metadata.uid}-succeeded` });
    process.stderr.write(
      `knative e2e: asynchronous Broker, Job complete -> next Job: ${stepLatencies(run, jobs)} ms\n`,
    );
  });

  it('fail-first: the exit code 1 of its second module fails the run, and the run-end event says so', async () => {
    await extras();
    const iuid = await requestRun(namespace(), 'fail-first');
    const run = await waitRun(namespace(), iuid, ended, 'ended');
    expect(run.status).toMatchObject({ phase: 'Failed', info: 'Failed', currentModule: 'fail', currentStep: 1 });
    expect(run.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason: 'ModuleFailed' }),
    );
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Failed', 'Pending']);
    const name = run.metadata.name!;
    const [end] = await waitFor(async () => (await runEnds(name)).length > 0 && runEnds(name), {
      timeoutMs: 60_000,
      intervalMs: 1000,
      message: `the run-end event of ${name} displayed`,
    });
    expect(end).toMatchObject({ type: 'net.cascade.run.failed.v1', id: `${run.metadata.uid}-failed` });
  });

  it('a module result posted to the Broker by the module itself ends its step, before its Job ends', async () => {
    await extras();
    const iuid = await requestRun(namespace(), 'posting');
    const run = await waitRun(namespace(), iuid, ended, 'ended');
    expect(run.status?.phase).toBe('Succeeded');
    const [poster] = run.status!.modules!;
    expect(poster).toMatchObject({ name: 'poster', phase: 'Succeeded', result: 'success' });
    // its container prints for 60 s; the result it posted first ended the step long before
    const took = Date.parse(poster!.completionTime!) - Date.parse(poster!.startTime!);
    expect(took).toBeLessThan(40_000);
  });

  it("a forged Job event posted to the Broker, the running Job's name with an invented end, moves nothing", async () => {
    await extras();
    const ns = namespace();
    const iuid = await requestRun(namespace(), 'slow');
    const running = await waitRun(
      ns,
      iuid,
      (r) => r.status?.modules?.[0]?.phase === 'Running' && !!r.status.modules[0].jobName,
      'running its first module',
    );
    const batch = apiClient(adminKubeConfig(), BatchV1Api);
    const jobName = running.status!.modules![0]!.jobName!;
    const real = await batch.readNamespacedJob({ namespace: ns, name: jobName });
    const forged: V1Job = {
      ...real,
      status: {
        ...real.status,
        succeeded: 1,
        active: 0,
        completionTime: new Date(),
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached' },
          { type: 'Complete', status: 'True', reason: 'CompletionsReached' },
        ],
      },
    };
    const url = brokerIngressUrl(ns, 'default');
    const id = randomUUID();
    const status = await postEvent(url, {
      id,
      type: 'dev.knative.apiserver.resource.update',
      data: forged,
      extensions: { kind: 'Job', apiversion: 'batch/v1', name: jobName },
    });
    expect(status).toBe(202);
    // the function read the Job and found it running: docs/security.md, "Job events are checked, not trusted"
    await waitFor(async () => (await unconfirmedLogged(jobName)) > 0, {
      timeoutMs: 180_000,
      intervalMs: 1000,
      message: `the forged event of Job ${jobName} logged as unconfirmed`,
    }).catch(async (error: unknown) => {
      await tellForged(jobName, id).catch((e: unknown) => process.stderr.write(`forged event: ${e}\n`));
      throw error;
    });
    const now = await runOf(ns, iuid);
    expect(now?.status?.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending']);
    // the step ends by its result, as a module reports one: its Job would run 10 min
    const result = { runname: running.metadata!.name!, modulename: 'slow', moduleresult: 'success' };
    expect(await postEvent(url, { id: randomUUID(), type: MODULE_FINISHED, data: result })).toBe(202);
    const done = await waitRun(ns, iuid, ended, 'ended');
    expect(done.status?.phase).toBe('Succeeded');
  }, 480_000);

  it('a run request the function refuses (400) lands in the dead-letter sink with the extensions Knative adds', async () => {
    const bad = `bad-${randomBytes(3).toString('hex')}`;
    const url = brokerIngressUrl(namespace(), 'default');
    const id = randomUUID();
    // an iuid that breaks its rule: docs/contract.md, Fields
    expect(await postEvent(url, { id, type: RUN_REQUESTED, data: { turlinfo: bad, iuid: '!' } })).toBe(202);
    const [dead] = await waitFor(
      async () => {
        const seen = deadLetters(await deadLetterLog()).filter((e) => e.event?.id === id);
        return seen.length > 0 && seen;
      },
      { timeoutMs: 60_000, intervalMs: 1000, message: 'the refused event in the dead-letter sink' },
    );
    expect(dead!.event).toMatchObject({ type: RUN_REQUESTED, knativeerrorcode: '400' });
    expect(dead!.event!.knativeerrordest).toContain(`cascade.${namespace()}`);
    expect(JSON.parse(dead!.reply!)).toMatchObject({ error: expect.stringContaining('iuid') });
  });

  it('on the synchronous Broker (the local class without messaging.knative.dev/async-handler, the Broker made anew) the ingress answers after the run request is delivered, and the run Succeeds', async () => {
    await extras();
    const ns = namespace();
    await recreateBroker(adminKubeconfigPath(), ns, false);
    const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
    const channels = (await custom.listNamespacedCustomObject({
      group: 'messaging.knative.dev',
      version: 'v1',
      namespace: ns,
      plural: 'inmemorychannels',
    })) as { items: { metadata: { annotations?: Record<string, string> } }[] };
    expect(channels.items.map((c) => c.metadata.annotations?.['messaging.knative.dev/async-handler'])).toEqual([
      undefined,
    ]);
    const [run, jobs] = await recordingJobs(async () => {
      const iuid = await requestRun(namespace());
      // the ingress answered once the function had: the run was made before that
      expect(await runOf(ns, iuid)).toBeDefined();
      return waitRun(ns, iuid, ended, 'ended');
    });
    expect(run.status?.phase).toBe('Succeeded');
    process.stderr.write(`knative e2e: synchronous Broker, Job complete -> next Job: ${stepLatencies(run, jobs)} ms\n`);
  }, 300_000);

  it('after the stable window the function has no pod; a run request through the Broker wakes it, and the run Succeeds', async () => {
    await extras();
    await waitFor(async () => (await functionPods()).length === 0, {
      timeoutMs: 240_000,
      intervalMs: 1000,
      message: 'the function has no pod',
    });
    const started = Date.now();
    const iuid = await requestRun(namespace());
    await waitRun(namespace(), iuid, (r) => !!r.status?.phase, 'created');
    process.stderr.write(`knative e2e: run request from zero -> run created: ${Date.now() - started} ms\n`);
    const run = await waitRun(namespace(), iuid, ended, 'ended');
    expect(run.status?.phase).toBe('Succeeded');
  }, 300_000);

  it('a Job that completes while the function has no pod wakes it through the ApiServerSource, and the run Succeeds', async () => {
    await extras();
    // the janitor's sweep could end the run too: suspended, it leaves the Job's event the only way
    await suspendJanitor(namespace(), true);
    onTestFinished(() => suspendJanitor(namespace(), false));
    const iuid = await requestRun(namespace(), 'long');
    await waitRun(namespace(), iuid, (r) => r.status?.modules?.[0]?.phase === 'Running', 'running its module');
    await waitFor(async () => (await functionPods()).length === 0, {
      timeoutMs: 120_000,
      intervalMs: 1000,
      message: 'the function has no pod while the module runs',
    });
    const meanwhile = await runOf(namespace(), iuid);
    expect(meanwhile?.status?.modules?.map((m) => m.phase)).toEqual(['Running']);
    // nothing but the Job's change through the ApiServerSource and the Broker can wake it now
    const run = await waitRun(namespace(), iuid, ended, 'ended', 180_000);
    expect(run.status?.phase).toBe('Succeeded');
  }, 300_000);
});

/**
 * The logs of a Knative Service's pods, by pod name, of the container named
 * `container`; a pod that is going still has its log. A log that cannot be
 * read reads `no log: <why>`.
 */
async function serviceLogs(service: string, container: string): Promise<Map<string, string>> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const logs = new Map<string, string>();
  for (const pod of await servicePods(adminKubeconfigPath(), namespace(), service)) {
    const name = pod.metadata!.name!;
    const log = await core
      .readNamespacedPodLog({ namespace: namespace(), name, container })
      .catch((error: unknown) => `no log: ${String(error).replaceAll('\n', ' ')}`);
    logs.set(name, log);
  }
  return logs;
}

/** The function pods' logs: its container's name in knative/service.yaml. */
const functionLogs = () => serviceLogs('cascade', 'function');

/** How many times the function's pods logged Job `job` ignored as unconfirmed: docs/contract.md, Job events. */
async function unconfirmedLogged(job: string): Promise<number> {
  const logs = [...(await functionLogs()).values()];
  const records = logs.flatMap((log) => jsonRecords<{ job?: string; reason?: string }>(log));
  return records.filter((r) => r.job === job && r.reason === 'unconfirmed').length;
}

/** For a failure's reader: what each of the function's pods logged of the Job, and the event's dead letter, if any. */
async function tellForged(job: string, id: string): Promise<void> {
  for (const [name, log] of await functionLogs()) {
    const lines = log.split('\n').filter((line) => line.includes(job) || line.startsWith('no log'));
    process.stderr.write(`forged event: pod ${name} logged:\n${lines.join('\n')}\n`);
  }
  const dead = deadLetters(await deadLetterLog()).filter((e) => e.event?.id === id);
  process.stderr.write(`forged event: dead letters ${JSON.stringify(dead)}\n`);
}

/** The records of the dead-letter sink's log (functions/dead-letters/record.ts), one JSON line each. */
function deadLetters(log: string): DeadLetter[] {
  return jsonRecords<DeadLetter & { msg: string }>(log).filter((line) => line.msg === 'dead letter');
}

/** A pod log's JSON lines (pino's records), parsed; other lines left out. */
function jsonRecords<T>(log: string): T[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
}

/** The log of the dead-letter sink's pods: its container is unnamed, so Knative's name. */
async function deadLetterLog(): Promise<string> {
  return [...(await serviceLogs('cascade-dead-letters', 'user-container')).values()].join('\n');
}
