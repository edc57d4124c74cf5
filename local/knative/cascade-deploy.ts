// Cascade deployed on real Knative Serving and Eventing as a user deploys it:
// the release of `npm run dist` (release.ts), its crds.yaml applied, then
// `kubectl apply -k` of an overlay of its install.yaml that changes only what
// a user changes. The function's image is the release's, pulled by digest
// from the local registry. The namespace's annotations
// send every pod of it to the real node, through the control plane's
// admission plugins PodNodeSelector and PodTolerationRestriction; knative/'s
// own objects are not touched for it. The scenario ConfigMap may hold a test's
// scenario. knative/broker.yaml leaves the Broker's class to the cluster; this
// overlay chooses the local cluster's (localBrokerAnnotations).
// recreateBroker makes the Broker anew, synchronous or not.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load, loadAll } from 'js-yaml';
import { kubectlPath } from '../cluster/crds.ts';
import { repoRoot } from '../cluster/paths.ts';
import { sleep } from '../cluster/poll.ts';
import { runCommand } from '../cluster/run-command.ts';
import { REAL_NODE } from '../node/node-config.ts';
import { onRealNode } from '../node/real-modules.ts';
import { tempDir } from '../temp-dir.ts';
import { ASYNC_HANDLER } from '../stand-ins/broker/config.ts';
import type { PublishedRelease } from './release.ts';

export const BROKER_CLASS = 'eventing.knative.dev/broker.class';

/**
 * What the local cluster chooses for the Broker `default`, which
 * knative/broker.yaml leaves to each cluster. The class: the channel-based
 * Broker this cluster installs (local/knative/eventing/), on the
 * InMemoryChannel. With `asyncBroker`, messaging.knative.dev/async-handler,
 * which only that channel reads: the ingress answers each sender at once
 * (202) and delivers in the background. Without it, as on Eventing
 * 1.15-1.16 where it is ignored, the ingress answers only once every
 * Trigger's delivery ended, retries and dead-letter sink included (500 if
 * one was lost). Then the ApiServerSource, which sends one change at a time
 * per resource, waits for the function's answer to each Job event. One
 * failing event holds every Job event behind it for its whole retry schedule
 * (3.5 min), and the function's run-end POST to K_SINK waits for every user
 * Trigger. What it costs: an event is in memory only once answered, so a
 * dispatcher restart loses it; the janitor repairs a lost Job event. Cascade
 * is correct either way (docs/operations.md). It takes effect when the
 * Broker is created only: see recreateBroker.
 */
export function localBrokerAnnotations(asyncBroker: boolean): Record<string, string> {
  return { [BROKER_CLASS]: 'MTChannelBasedBroker', ...(asyncBroker ? { [ASYNC_HANDLER]: 'true' } : {}) };
}

export interface CascadeDeployment {
  /** The release whose install.yaml is applied, its image in the local registry. */
  release: Pick<PublishedRelease, 'install' | 'crds' | 'repository'>;
  /** The namespace install.yaml goes to (kustomize renames the Namespace too). */
  namespace: string;
  /** The scenario of the ConfigMap cascade-scenario-config, `{cascademodules: [...]}`. */
  scenario?: object;
  /** Labels the namespace as a test's (local/kube.ts): the tests' clean-up may remove it. */
  test?: boolean;
  /** A bench's or a test's change to the Service `cascade` (servicePatch); never a user's. */
  service?: ServiceChange;
}

/** Annotations of the Service's revision template, and environment variables of its function container. */
export interface ServiceChange {
  annotations?: Record<string, string>;
  env?: Record<string, string>;
}

/** A JSON patch of the Knative Service `cascade` that makes `change`. */
export function servicePatch(change: ServiceChange): object[] {
  const annotations = Object.entries(change.annotations ?? {}).map(([key, value]) => ({
    op: 'add',
    path: `/spec/template/metadata/annotations/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
    value,
  }));
  const env = Object.entries(change.env ?? {}).map(([name, value]) => ({
    op: 'add',
    path: '/spec/template/spec/containers/0/env/-',
    value: { name, value },
  }));
  return [...annotations, ...env];
}

/** The annotations that put every pod of a namespace on the real node. */
export function realNodeNamespaceAnnotations(): Record<string, string> {
  return {
    'scheduler.alpha.kubernetes.io/node-selector': `${REAL_NODE.label.key}=${REAL_NODE.label.value}`,
    'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify(onRealNode.tolerations),
  };
}

/** The name of the release's install.yaml in the overlay: kustomize reads no file outside its directory. */
export const OVERLAY_INSTALL = 'install.yaml';

/** The overlay's kustomization.yaml; the release's install.yaml is copied beside it as OVERLAY_INSTALL. */
export function cascadeOverlay(deployment: CascadeDeployment): string {
  const namespacePatch: object[] = [
    { op: 'add', path: '/metadata/annotations', value: realNodeNamespaceAnnotations() },
  ];
  if (deployment.test)
    namespacePatch.push({ op: 'add', path: '/metadata/labels/cascade.cascade.net~1test', value: 'true' });
  const patches: object[] = [
    { target: { kind: 'Namespace' }, patch: dump(namespacePatch) },
    // a merge: annotations knative/broker.yaml may come to hold stay; the target
    // matches the Broker whatever namespace install.yaml gave it
    {
      target: { kind: 'Broker', name: 'default' },
      patch: dump({
        apiVersion: 'eventing.knative.dev/v1',
        kind: 'Broker',
        metadata: { name: 'default', annotations: localBrokerAnnotations(true) },
      }),
    },
  ];
  if (deployment.service) {
    const target = { group: 'serving.knative.dev', kind: 'Service', name: 'cascade' };
    patches.push({ target, patch: dump(servicePatch(deployment.service)) });
  }
  if (deployment.scenario) {
    patches.push({
      target: { kind: 'ConfigMap', name: 'cascade-scenario-config' },
      patch: dump([{ op: 'replace', path: '/data/config.json', value: JSON.stringify(deployment.scenario) }]),
    });
  }
  return dump({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: deployment.namespace,
    resources: [OVERLAY_INSTALL],
    // the digest stays: the registry is the local one
    images: [{ name: deployment.release.repository.release, newName: deployment.release.repository.local }],
    patches,
  });
}

/**
 * Writes the overlay and runs `kubectl apply -k` on it, as docs/deploy/kustomize.md
 * says, again for up to `budgetMs` while a webhook that just started refuses
 * it. Client-side, as a user runs it: the SinkBinding cascade-function writes
 * the Service's `containers`, an atomic list, so a server-side apply of it
 * again conflicts; a client-side one replaces the list, and the SinkBinding's
 * webhook puts K_SINK back.
 */
export async function applyCascade(
  kubeconfig: string,
  deployment: CascadeDeployment,
  budgetMs = 120_000,
): Promise<void> {
  const dir = tempDir('cascade-knative-overlay-');
  copyFileSync(deployment.release.install, join(dir, OVERLAY_INSTALL));
  writeFileSync(join(dir, 'kustomization.yaml'), cascadeOverlay(deployment));
  await runCommand(kubectlPath(), [`--kubeconfig=${kubeconfig}`, 'apply', '-f', deployment.release.crds]);
  const args = [`--kubeconfig=${kubeconfig}`, 'apply', '-k', dir];
  const started = Date.now();
  for (;;) {
    try {
      await runCommand(kubectlPath(), args);
      return;
    } catch (error) {
      if (Date.now() - started > budgetMs) throw error;
      await sleep(2000);
    }
  }
}

/** Knative's groups, whose every object has a Ready condition. */
const KNATIVE_GROUPS = ['serving.knative.dev', 'eventing.knative.dev', 'sources.knative.dev'];

/** Every object of knative/ that has a Ready condition, as `kubectl wait` names them: `triggers.eventing.knative.dev/<name>`. */
export function cascadeReadyObjects(): string[] {
  const dir = join(repoRoot, 'knative');
  const objects = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => loadAll(readFileSync(join(dir, f), 'utf8')) as (KubeObject | null)[]);
  // kubectl waits for each in turn. A SinkBinding made Ready may patch the Service after: waited for first,
  // the Service is then waited for at the revision that has K_SINK.
  const bindingsFirst = (o: KubeObject) => (o.kind === 'SinkBinding' ? 0 : 1);
  return objects
    .filter((o): o is KubeObject => Boolean(o && KNATIVE_GROUPS.includes(o.apiVersion.split('/')[0]!)))
    .sort((a, b) => bindingsFirst(a) - bindingsFirst(b))
    .map((o) => `${o.kind.toLowerCase()}s.${o.apiVersion.split('/')[0]}/${o.metadata.name}`);
}

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

/** Waits, as a user would with `kubectl wait`, until every object of cascadeReadyObjects() in `namespace` is Ready. */
export async function waitCascadeReady(kubeconfig: string, namespace: string, timeoutSeconds = 300): Promise<void> {
  await runCommand(kubectlPath(), [
    `--kubeconfig=${kubeconfig}`,
    '-n',
    namespace,
    'wait',
    '--for=condition=Ready',
    `--timeout=${timeoutSeconds}s`,
    ...cascadeReadyObjects(),
  ]);
}

/**
 * Deletes the Broker `default` of `namespace` and creates it again from
 * knative/broker.yaml with the local cluster's annotations, the async-handler
 * one or not (localBrokerAnnotations), then waits until it and every Trigger
 * are Ready. Eventing copies the annotation to the Broker's channel when it
 * creates the channel, and never after: a change of the annotation on a
 * Broker that exists changes nothing.
 */
export async function recreateBroker(kubeconfig: string, namespace: string, asyncBroker: boolean): Promise<void> {
  const broker = load(readFileSync(join(repoRoot, 'knative', 'broker.yaml'), 'utf8')) as {
    metadata: { namespace?: string; annotations?: Record<string, string> };
  };
  broker.metadata.namespace = namespace;
  broker.metadata.annotations = { ...broker.metadata.annotations, ...localBrokerAnnotations(asyncBroker) };
  const file = join(tempDir('cascade-broker-'), 'broker.yaml');
  writeFileSync(file, dump(broker));
  const kubectl = (...args: string[]) =>
    runCommand(kubectlPath(), [`--kubeconfig=${kubeconfig}`, '-n', namespace, ...args]);
  await kubectl('delete', 'broker', 'default', '--ignore-not-found', '--wait=true');
  // The IMC dispatcher keys its handlers by the channel's host, which the new channel shares with the old
  // one, and sets a handler's mode when it makes it: the new channel is made once the old one is gone.
  await kubectl('wait', '--for=delete', '--timeout=120s', 'inmemorychannels', '--all');
  // --save-config: a later `kubectl apply -k knative/` still takes it over
  await kubectl('create', '--save-config', '-f', file);
  await kubectl('wait', '--for=condition=Ready', '--timeout=120s', 'broker/default');
  await kubectl('wait', '--for=condition=Ready', '--timeout=120s', 'triggers', '--all');
  // The IMC dispatcher takes the new channel's subscribers a few seconds after they show Ready: an event
  // sent before is taken (202) and reaches no Trigger. Seen once: 3.3 s.
  await sleep(BROKER_SETTLE_MS);
}

/** How long recreateBroker waits after every Trigger is Ready. */
const BROKER_SETTLE_MS = 10_000;
