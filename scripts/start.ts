// `npm start`: Cascade on real Knative, on the bundled local cluster. It
// takes the control plane `npm run cluster:up` left, or starts its own, and
// the real node beside kwok's. Knative Serving with Traefik and Knative
// Eventing run as pods on it, from images built here, as does the function's.
// Then the release is installed as a user installs it: written as `npm run
// dist` does, its image pushed to the local registry, crds.yaml and
// install.yaml applied (local/knative/release.ts, cascade-deploy.ts). It
// prints how to send a run request
// through the Broker, and stays until Ctrl-C, which stops what it started. It
// never uses $KUBECONFIG: the function as a process against a cluster of
// yours is `npm run start:process`.
import { dirname } from 'node:path';
import { bundledCluster } from '../local/bundled-cluster.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { brokerIngressUrl } from '../local/knative/broker-ingress.ts';
import { applyCascade, waitCascadeReady } from '../local/knative/cascade-deploy.ts';
import { installEventing } from '../local/knative/eventing/install.ts';
import { prepareRelease, publishRelease, type PublishedRelease } from '../local/knative/release.ts';
import { installServing } from '../local/knative/serving/install.ts';
import { oneLine } from '../local/kube.ts';
import { prebuild } from '../local/prebuild.ts';
import { realNodeRunning, startRealNode } from '../local/node/node.ts';
import { namespacePlacedModule } from '../local/node/real-modules.ts';

/** knative/kustomization.yaml's namespace, and the scenario its function and janitor serve. */
const NAMESPACE = 'cascade-operator';
const SCENARIO = 'cascadeautooperator-ip';
const IUID = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';

/** The seed's success scenario, each module a real container of the module image printing a few lines. */
const DEMO_SCENARIO = {
  cascademodules: [
    namespacePlacedModule('grayscale', { foo: 'bar', spamm: 'eggs', lines: '3', interval: '1' }),
    namespacePlacedModule('binarization', { thresh: '128', lines: '3', interval: '1' }),
    namespacePlacedModule('diff', { bar: 'foo', lines: '3', interval: '1' }),
  ],
};

const log = (line: string) => process.stderr.write(`${line}\n`);
const stops: (() => Promise<unknown>)[] = [];
let stopping: Promise<void> | undefined;

/** Stops what this process started, in the reverse order: after Ctrl-C and after any failure. */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  })();
  return stopping;
}

async function fail(what: string, error: unknown): Promise<never> {
  await stopAll();
  log(`cascade: npm start failed: ${what}: ${oneLine(error)}`);
  process.exit(1);
}

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

/** The control plane and the real node: kept when they already ran, else started and stopped at the end. */
async function cluster(): Promise<string> {
  const own = await bundledCluster();
  stops.push(own.stop);
  const stateDir = dirname(own.kubeconfig);
  if (!realNodeRunning(stateDir)) {
    log('cascade: starting the real node (the first time builds kubelet, containerd and runc, several minutes)');
    const node = await startRealNode({ clusterStateDir: stateDir, log, tieToProcess: true });
    stops.push(node.stop);
  }
  return own.kubeconfig;
}

/** Knative Serving and Eventing, and Cascade's release with its image in the local registry, side by side. */
async function knative(kubeconfig: string, prepared: ReturnType<typeof prepareRelease>): Promise<PublishedRelease> {
  log(
    'cascade: installing Knative Serving, Traefik and Knative Eventing (the first time builds them, tens of minutes)',
  );
  const [, , release] = await Promise.all([
    installServing(kubeconfig, { log }),
    installEventing({ kubeconfig, log }),
    publishRelease(log, prepared),
  ]);
  return release;
}

function banner(kubeconfig: string, broker: string): string[] {
  const data = `{"turlinfo":"s3://bucket/in.tgz","iuid":"${IUID}"}`;
  const cli = `KUBECONFIG=${kubeconfig} npx kubectl-cascade -n ${NAMESPACE}`;
  const run = `${SCENARIO}-${IUID.slice(0, 5)}`;
  return [
    '',
    `cascade: Cascade runs on Knative in namespace ${NAMESPACE}, KUBECONFIG=${kubeconfig}`,
    'cascade: start a run from another terminal, as a CloudEvent through the Knative Broker (answered 202):',
    `  curl -si -X POST ${broker} -H 'content-type: application/json' -H 'ce-specversion: 1.0' -H 'ce-id: run-33e65' -H 'ce-source: /curl' -H 'ce-type: net.cascade.run.requested.v1' -d '${data}'`,
    `  KUBECONFIG=${kubeconfig} ${kubectlPath()} -n ${NAMESPACE} get cascaderuns,jobs,pods -w`,
    "cascade: follow its modules' pod logs with the CLI, kubectl-cascade (cli/), while it runs; then see how it went:",
    `  ${cli} logs -f ${run}`,
    `  ${cli} get ${run}`,
    'cascade: Ctrl-C stops what npm start started',
    '',
  ];
}

async function main(): Promise<void> {
  const interrupt = () => void stopAll().then(() => process.exit(0));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('uncaughtException', (error) => void fail('a part of npm start crashed', error));
  const started = Date.now();
  let step = 'starting the bundled control plane and its real node';
  // on a first start every build begins now, not when its step comes
  void prebuild();
  // the release needs no cluster: it is written, or found in the cache, while the cluster starts
  const prepared = prepareRelease(log);
  prepared.catch(() => {});
  try {
    const kubeconfig = await cluster();
    step = 'installing Knative and building the function image';
    const release = await knative(kubeconfig, prepared);
    step = `installing the release's crds.yaml and install.yaml in namespace ${NAMESPACE}`;
    await applyCascade(kubeconfig, { namespace: NAMESPACE, scenario: DEMO_SCENARIO, release });
    step = 'waiting until every object of the release is Ready';
    await waitCascadeReady(kubeconfig, NAMESPACE);
    log(`cascade: ready in ${seconds(started)}`);
    log(banner(kubeconfig, brokerIngressUrl(NAMESPACE)).join('\n'));
    // nothing of this process runs on its own now: stay, until Ctrl-C
    setInterval(() => {}, 3_600_000);
  } catch (error) {
    await fail(step, error);
  }
}

void main();
