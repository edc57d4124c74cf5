// Cascade on real Knative Serving and Eventing on the real node, for the
// test files that ask for it: the real node joined, Serving (with Traefik) and
// Eventing installed by their own installers, the release written by
// `npm run dist` with its image pushed to the local registry, then its
// crds.yaml and install.yaml applied, the latter with `kubectl apply -k` of an overlay
// (local/knative/cascade-deploy.ts), once, in the file's beforeAll. Removed in
// its afterAll: the namespace always, Knative when the file started the node.
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  applyCascade,
  waitCascadeReady as waitReady,
  type CascadeDeployment,
} from '../../local/knative/cascade-deploy.ts';
import { watchJobSightings, type JobSighting } from './job-sightings.ts';
import { kubeconfigConnection } from '../../shared/kube/connect.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { installEventing, uninstallEventing } from '../../local/knative/eventing/install.ts';
import { installServing, uninstallServing } from '../../local/knative/serving/install.ts';
import { apiClient, apiStatus } from '../../local/kube.ts';
import { realNodeRunning } from '../../local/node/node.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { RUN_REQUESTED } from '../../shared/api/events.ts';
import { brokerIngressUrl, postEvent } from './knative-eventing.ts';
import { publishRelease, type PublishedRelease } from '../../local/knative/release.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';
import { REAL_NODE_HOOK_TIMEOUT, useRealNode } from './real-node.ts';

const log = (message: string) => process.stderr.write(`${message}\n`);

/** Waits until every object of knative/ in `namespace` is Ready (local/knative/cascade-deploy.ts). */
export function waitCascadeReady(namespace: string): Promise<void> {
  return waitReady(adminKubeconfigPath(), namespace);
}

/**
 * Deletes the namespace while Knative's controllers still run to drop their
 * finalizers; its pods go at once. The CascadeAutoOperators' finalizer goes
 * too: the janitor, whose pods go, would remove it at its next sweep.
 */
export async function removeNamespace(namespace: string): Promise<void> {
  const kc = adminKubeConfig();
  const core = apiClient(kc, CoreV1Api);
  const custom = apiClient(kc, CustomObjectsApi);
  const gone = (error: unknown) => {
    if (apiStatus(error) !== 404) throw error;
  };
  const operators = { group: 'cascade.cascade.net', version: 'v1alpha1', namespace, plural: 'cascadeautooperators' };
  const list = (await custom.listNamespacedCustomObject(operators)) as { items: { metadata: { name: string } }[] };
  for (const { metadata } of list.items) {
    await custom
      .patchNamespacedCustomObject(
        { ...operators, name: metadata.name, body: { metadata: { finalizers: null } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .catch(gone);
  }
  await core.deleteNamespace({ name: namespace }).catch(gone);
  await waitFor(
    async () => {
      const pods = await core.listNamespacedPod({ namespace });
      for (const pod of pods.items) {
        await core.deleteNamespacedPod({ namespace, name: pod.metadata!.name!, gracePeriodSeconds: 0 }).catch(gone);
      }
      return core.readNamespace({ name: namespace }).then(
        () => false,
        (error: unknown) => apiStatus(error) === 404,
      );
    },
    { timeoutMs: 180_000, intervalMs: 1000, message: `namespace ${namespace} gone` },
  );
}

export interface KnativeCascadeOptions extends Omit<CascadeDeployment, 'namespace' | 'release'> {
  /** config-autoscaler's settings for Serving, such as a short stable window. */
  autoscaler?: Record<string, string>;
  /** Run once Knative is installed, before knative/ is applied: a change to Knative's own settings. */
  beforeApply?: () => Promise<void>;
}

/**
 * Joins the real node and installs Serving and Eventing for this file
 * (beforeAll), with `alongside` run meanwhile; removes them after (afterAll)
 * when the file started the node.
 */
export function useKnative(
  options: Pick<KnativeCascadeOptions, 'autoscaler'> = {},
  alongside: () => Promise<void> = async () => {},
): void {
  let nodeWasRunning = false;
  beforeAll(() => {
    nodeWasRunning = realNodeRunning(dirname(adminKubeconfigPath()));
  });
  useRealNode();
  beforeAll(async () => {
    const kubeconfig = adminKubeconfigPath();
    const started = Date.now();
    await Promise.all([
      installServing(kubeconfig, { autoscaler: options.autoscaler, log }),
      installEventing({ kubeconfig, log }),
      alongside(),
    ]);
    log(`knative: Serving and Eventing installed in ${Date.now() - started} ms`);
  }, REAL_NODE_HOOK_TIMEOUT);
  // hooks run in reverse at the end: this one before the node goes
  afterAll(async () => {
    if (nodeWasRunning) return;
    await uninstallEventing(adminKubeconfigPath());
    await uninstallServing(adminKubeconfigPath());
  }, 600_000);
}

/**
 * Joins the real node, installs Serving and Eventing (useKnative), deploys
 * knative/ in a namespace of its own, and waits until every object is Ready.
 * Resolves the namespace through the returned getter.
 */
export function useKnativeCascade(options: KnativeCascadeOptions): () => string {
  let namespace = '';
  let release: PublishedRelease | undefined;
  useKnative(options, async () => {
    release = await publishRelease(log);
  });
  beforeAll(async () => {
    const kubeconfig = adminKubeconfigPath();
    if (!release) throw new Error('the release was not published');
    await options.beforeApply?.();
    namespace = `cascade-e2e-${randomBytes(4).toString('hex')}`;
    const deployed = Date.now();
    const { scenario, service } = options;
    await applyCascade(kubeconfig, { scenario, service, namespace, release, test: true });
    await waitCascadeReady(namespace);
    log(`knative cascade: knative/ applied and every object Ready in ${Date.now() - deployed} ms`);
  }, REAL_NODE_HOOK_TIMEOUT);
  afterAll(async () => {
    if (namespace) await removeNamespace(namespace);
  }, 600_000);
  return () => namespace;
}

const RUNS = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascaderuns' };

/** The run of a run request's iuid, once the function made it. */
export async function runOf(namespace: string, iuid: string): Promise<CascadeRun | undefined> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  const list = (await custom.listNamespacedCustomObject({ ...RUNS, namespace })) as { items: CascadeRun[] };
  return list.items.find((run) => run.spec?.pid === iuid);
}

/** Waits until the run of `iuid` satisfies `done`; a timeout names its last status. */
export async function waitRun(
  namespace: string,
  iuid: string,
  done: (run: CascadeRun) => boolean,
  what: string,
  timeoutMs = 180_000,
): Promise<CascadeRun> {
  let last: CascadeRun | undefined;
  try {
    return await waitFor(
      async () => {
        last = await runOf(namespace, iuid);
        return last && done(last) && last;
      },
      { timeoutMs, intervalMs: 500, message: `run of ${iuid} ${what}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; its status: ${JSON.stringify(last?.status ?? null)}`);
  }
}

/** Whether a run ended. */
export const ended = (run: CascadeRun) => ['Succeeded', 'Failed', 'Cancelled'].includes(run.status?.phase ?? '');

export interface JobRecord extends JobSighting {
  /** The node of its pod. */
  node?: string;
}

/** Records every run Job of `namespace` as the host sees it (test/support/job-sightings.ts), and its pod's node. */
export function recordJobs(namespace: string): { synced: Promise<void>; stop: () => Map<string, JobRecord> } {
  const sightings = watchJobSightings(adminKubeconfigPath(), namespace);
  // a run's Jobs and pods go when it ends: each pod's node is taken while it lives
  const nodes = new Map<string, string>();
  const pods = inform({
    transport: httpsTransport(kubeconfigConnection(adminKubeconfigPath()), `/api/v1/namespaces/${namespace}/pods`, {
      labelSelector: 'job-name',
    }),
    on: (_change, object) => {
      const pod = object as V1Pod;
      const job = pod.metadata?.labels?.['job-name'];
      if (job && pod.spec?.nodeName) nodes.set(job, pod.spec.nodeName);
    },
  });
  return {
    synced: Promise.all([sightings.synced, pods.synced]).then(() => undefined),
    stop: () => {
      pods.stop();
      const jobs: Map<string, JobRecord> = sightings.stop();
      for (const [name, record] of jobs) record.node = nodes.get(name);
      return jobs;
    },
  };
}

/** Posts a run request to the Broker `default` of `namespace`; resolves to its iuid once the ingress took it. */
export async function requestRun(namespace: string, scenario?: string, iuid: string = randomUUID()): Promise<string> {
  const data = { turlinfo: 's3://incoming/in.tgz', iuid, ...(scenario ? { scenario } : {}) };
  const status = await postEvent(brokerIngressUrl(namespace, 'default'), {
    id: randomUUID(),
    type: RUN_REQUESTED,
    data,
  });
  // 202 from the asynchronous Broker; the synchronous one answers with the delivery's status
  expect([200, 202]).toContain(status);
  return iuid;
}

/** Suspends the janitor's CronJob of `namespace`, or lets it run again: a test that must see no sweep's move. */
export async function suspendJanitor(namespace: string, suspend: boolean): Promise<void> {
  await apiClient(adminKubeConfig(), BatchV1Api).patchNamespacedCronJob(
    { namespace, name: 'cascade-janitor', body: { spec: { suspend } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}
