// `npm run start:process`: Cascade's function served locally by faas-js-runtime behind
// Knative Serving's queue-proxy on http://localhost:8080 (PORT), as in a pod.
// With CASCADE_QUEUE_PROXY=off the function itself listens on PORT. It runs
// against $KUBECONFIG, or against the bundled local control plane when none is
// configured. In front of it stands the Knative Broker stand-in
// (local/stand-ins/broker/) on http://localhost:8081 (BROKER_PORT), with knative/'s
// Triggers and its dead-letter sink, whose events are printed. The Broker is
// synchronous, as Knative's default Broker on every release.
// CASCADE_BROKER=async makes it answer 202 before it delivers, as
// knative/broker.yaml's annotation does on Eventing 1.17+. Job changes reach
// the Broker through a local stand-in for Knative's ApiServerSource, as they
// would on a cluster. Ctrl-C stops everything this started.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { startApiServerSource } from '../local/stand-ins/apiserver-source.ts';
import { startBroker } from '../local/stand-ins/broker/broker.ts';
import { startDeadLetterSink } from '../local/stand-ins/broker/dead-letter-sink.ts';
import type { CloudEvent } from '../local/stand-ins/broker/cloudevent.ts';
import { bundledCluster, prepareNamespace } from '../local/bundled-cluster.ts';
import { freePort } from '../local/stand-ins/function-process.ts';
import { oneLine } from '../local/kube.ts';
import { startQueueProxy, type QueueProxy } from '../local/knative/queue-proxy/queue-proxy.ts';

const port = process.env.PORT ?? '8080';
const brokerPort = Number(process.env.BROKER_PORT ?? '8081');
const namespace = process.env.POD_NAMESPACE ?? 'cascade-operator';
const scenarioName = process.env.SCENARIO_NAME ?? 'cascadeautooperator-ip';
const demoScenario = join(repoRoot, 'local/demo-scenario.json');
const withQueueProxy = process.env.CASCADE_QUEUE_PROXY !== 'off';
const brokerMode = process.env.CASCADE_BROKER ?? 'sync';
if (brokerMode !== 'sync' && brokerMode !== 'async')
  throw new Error(`CASCADE_BROKER must be sync or async, not ${JSON.stringify(brokerMode)}`);

function brokerModeLine(async: boolean): string {
  return async
    ? "cascade: the Broker answers 202 before it delivers, as the local cluster's async-handler annotation on Eventing 1.17+ (CASCADE_BROKER=async)"
    : "cascade: the Broker answers once every Trigger's delivery ended, as Knative's default Broker (CASCADE_BROKER=async: before it delivers)";
}

/** The Broker stand-in in front of the function (on PORT), its dead-letter sink, and the ApiServerSource stand-in sending to it. */
async function startEventing(kubeconfig: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const deadLetters = await startDeadLetterSink(printDeadLetter);
  stack.push(() => deadLetters.stop());
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const broker = await startBroker({
    namespace,
    port: brokerPort,
    log,
    async: brokerMode === 'async',
    addresses: { 'Service/cascade': [`http://127.0.0.1:${port}`], 'Service/cascade-dead-letters': [deadLetters.url] },
  });
  stack.push(() => broker.stop());
  const source = await startApiServerSource({
    kc,
    namespace,
    sink: broker.url,
    onError: (e) => log(`apiserver-source: ${String(e)}`),
  });
  stack.push(async () => source.stop());
  return { broker };
}

/** The function on its port, behind queue-proxy on PORT unless CASCADE_QUEUE_PROXY=off. */
async function startFunction(kubeconfig: string) {
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: namespace,
    SCENARIO_NAME: scenarioName,
    CONFIG_PATH: process.env.CONFIG_PATH ?? demoScenario,
  };
  // behind queue-proxy the function takes a port of its own, as the user container of a pod
  const fnPort = withQueueProxy ? String(await freePort()) : port;
  const fn = spawn(
    process.execPath,
    [
      join(repoRoot, 'node_modules/faas-js-runtime/bin/cli.js'),
      join(repoRoot, 'functions/cascade/index.ts'),
      '--port',
      fnPort,
    ],
    { env, stdio: 'inherit' },
  );
  stack.push(() => endChild(fn));
  const qp: QueueProxy | undefined = withQueueProxy
    ? await startQueueProxy({ userPort: Number(fnPort), servingPort: Number(port), namespace, lockWaitSeconds: 120 })
    : undefined;
  // at once, not the 30 s drain of a pod's queue-proxy
  if (qp) stack.push(() => qp.stop('SIGKILL'));
  return { fn, fnPort, qp };
}

/** What runs where, and how to start a run from another terminal. */
function bannerLines(
  kubeconfig: string,
  kubectl: string,
  served: { fnPort: string; qp: QueueProxy | undefined },
  brokerAsync: boolean,
): string[] {
  const { fnPort, qp } = served;
  const data = '{"turlinfo":"s3://bucket/in.tgz","iuid":"33e65374-ee8e-4da6-a2e7-71a9cc39d222"}';
  return [
    '',
    qp
      ? `cascade: function on http://localhost:${fnPort} behind Knative's queue-proxy on http://localhost:${port} (its metrics: ${qp.metricsUrl})`
      : `cascade: function on http://localhost:${port}`,
    `cascade: namespace ${namespace}, scenario ${scenarioName}, KUBECONFIG=${kubeconfig}`,
    `cascade: Knative Broker stand-in on http://localhost:${brokerPort}/${namespace}/default (the Triggers of knative/triggers.yaml; events sent to its dead-letter sink are printed here)\n${brokerModeLine(brokerAsync)}`,
    'cascade: start a run from another terminal, as a CloudEvent through the Broker (answered 202, or 500 when a delivery was lost):',
    `  curl -si -X POST localhost:${brokerPort}/${namespace}/default -H 'content-type: application/json' -H 'ce-specversion: 1.0' -H 'ce-id: run-33e65' -H 'ce-source: /curl' -H 'ce-type: net.cascade.run.requested.v1' -d '${data}'`,
    '  or as a plain HTTP post to the function (answered with JSON):',
    `  curl -s -X POST localhost:${port}/ -H 'content-type: application/json' -d '${data}'`,
    `  KUBECONFIG=${kubeconfig} ${kubectl} -n ${namespace} get cascaderuns -w`,
    'cascade: or with the CLI, kubectl-cascade (cli/), which then follows the run:',
    ...cliCommands(kubeconfig, `http://localhost:${port}`),
    '',
  ];
}

/**
 * What this process started, stopped in the reverse order: after Ctrl-C, and
 * after any failure, so that a failed start leaves no process and no port.
 */
function stopStack() {
  const stops: (() => Promise<unknown>)[] = [];
  let stopping: Promise<void> | undefined;
  return {
    push: (stop: () => Promise<unknown>) => stops.push(stop),
    get stopping() {
      return stopping !== undefined;
    },
    stopAll: () =>
      (stopping ??= (async () => {
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
      })()),
  };
}

/** Ends `child` with SIGTERM (SIGKILL after 10 s) and resolves once it is gone. */
async function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

const stack = stopStack();

async function fail(what: string, error: unknown): Promise<never> {
  await stack.stopAll();
  process.stderr.write(`cascade: npm run start:process failed: ${what}: ${oneLine(error)}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  // Ctrl-C while starting stops what started so far
  const interrupt = () => void stack.stopAll().then(() => process.exit(0));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  // a part that throws outside of these awaits (an 'error' event, say) stops everything too
  process.once('uncaughtException', (error) => void fail('a part of npm run start:process crashed', error));
  let step = 'starting the bundled control plane';
  try {
    const own = process.env.KUBECONFIG ? undefined : await bundledCluster();
    if (own) stack.push(own.stop);
    const kubeconfig = process.env.KUBECONFIG ?? own!.kubeconfig;
    step = `preparing namespace ${namespace}`;
    if (own) await prepareNamespace(kubeconfig, namespace, scenarioName, demoScenario);
    // the bundled control plane comes with a kubectl of its version
    const kubectl = own ? kubectlPath() : 'kubectl';
    step = 'starting the function';
    const served = await startFunction(kubeconfig);
    // as the kubelet: no traffic before queue-proxy's readiness probe (the function's /ready) passes
    step = "waiting for queue-proxy's readiness probe";
    await served.qp?.waitReady();
    step = 'starting the Broker stand-in and the ApiServerSource stand-in';
    const { broker } = await startEventing(kubeconfig);
    watchChildren(served);
    process.stderr.write(bannerLines(kubeconfig, kubectl, served, broker.async).join('\n'));
  } catch (error) {
    await fail(step, error);
  }
}

/** The function or queue-proxy ending on its own ends everything. */
function watchChildren({ fn, qp }: { fn: ChildProcess; qp: QueueProxy | undefined }): void {
  fn.once('exit', (code) => {
    if (stack.stopping) return;
    process.stderr.write(`cascade: the function exited with ${code}\n`);
    void stack.stopAll().then(() => process.exit(1));
  });
  qp?.child.once('exit', (code) => {
    if (stack.stopping) return;
    process.stderr.write(`cascade: queue-proxy exited with ${code}:\n${qp.output().slice(-2000)}\n`);
    void stack.stopAll().then(() => process.exit(1));
  });
}

/** The kubectl-cascade commands of the demo run (iuid 33e65374-..., run <scenario>-33e65). */
function cliCommands(kubeconfig: string, url: string): string[] {
  const cli = `KUBECONFIG=${kubeconfig} npx kubectl-cascade -n ${namespace}`;
  const run = `${scenarioName}-33e65`;
  return [
    `  ${cli} submit --url ${url} --iuid 33e65374-ee8e-4da6-a2e7-71a9cc39d222 --turlinfo s3://bucket/in.tgz --watch`,
    `  ${cli} list`,
    `  ${cli} get ${run}`,
    `  ${cli} logs ${run}`,
  ];
}

/**
 * An event the Broker gave up on, in Knative's terms: its error extensions
 * when the Broker's filter returned the subscriber's answer, else a line
 * saying they are absent, as on a cluster.
 */
function printDeadLetter(event: CloudEvent): void {
  const { type, id, knativeerrorcode: code, knativeerrordest: dest, knativeerrordata: data } = event.attributes;
  const what = `dead-letter sink: ${type} ${id}`;
  if (code === undefined) {
    process.stderr.write(
      `${what}: no knativeerrordest/knativeerrorcode/knativeerrordata (Knative adds none after a per-attempt timeout or a 2xx reply that is no CloudEvent)\n`,
    );
    return;
  }
  const body = Buffer.from(data ?? '', 'base64').toString();
  process.stderr.write(
    `${what}: knativeerrordest=${dest} knativeerrorcode=${code} knativeerrordata (base64 of the last reply)=${JSON.stringify(body)}\n`,
  );
}

void main();
