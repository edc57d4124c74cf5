// Cascade's ApiServerSource (knative/apiserversource.yaml, with the identity
// of knative/apiserversource-rbac.yaml) under real Knative Eventing v0.50.0 on
// the real node (local/knative/eventing/): the controller makes it Ready and
// runs its adapter as a Deployment, and a Job's change reaches a Trigger's
// subscriber through Cascade's Broker. The controller gives no way to place
// the adapter's pod, so the namespace does, with Kubernetes' admission
// plugins PodNodeSelector and PodTolerationRestriction (docs/local-stack.md).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  type V1Container,
  type V1Job,
} from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { apiClient } from '../local/kube.ts';
import { imageReference } from '../local/knative/eventing/components.ts';
import { onRealNode } from '../local/node/real-modules.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import {
  cascadeManifest,
  deleteNamespaceGone,
  deployOnRealNode,
  deploymentLog,
  displayedEvents,
  useKnativeEventing,
  waitDeploymentsAvailable,
  waitKnativeReady,
  type KnativeObject,
} from './support/knative-eventing.ts';

useKnativeEventing();

let namespace = '';

async function createCustom(group: string, plural: string, body: object): Promise<void> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  await custom.createNamespacedCustomObject({ group, version: 'v1', namespace, plural, body });
}

beforeAll(async () => {
  const kc = adminKubeConfig();
  const core = apiClient(kc, CoreV1Api);
  namespace = `knative-eventing-source-${randomBytes(4).toString('hex')}`;
  // every pod of the namespace on the real node, the adapter's included
  await core.createNamespace({
    body: {
      metadata: {
        name: namespace,
        labels: { 'cascade.cascade.net/test': 'true' },
        annotations: {
          'scheduler.alpha.kubernetes.io/node-selector': `${REAL_NODE.label.key}=${REAL_NODE.label.value}`,
          'scheduler.alpha.kubernetes.io/defaultTolerations': JSON.stringify(onRealNode.tolerations),
        },
      },
    },
  });
  const objects = apiClient(kc, KubernetesObjectApi);
  const rbac = loadAll(readFileSync(join(repoRoot, 'knative', 'apiserversource-rbac.yaml'), 'utf8')) as {
    metadata: { namespace?: string };
  }[];
  for (const object of rbac) await objects.create({ ...object, metadata: { ...object.metadata, namespace } });
  const display = imageReference('event_display');
  const sink = cascadeManifest<{ spec: { template: { spec: { containers: V1Container[] } } } }>('dead-letter-sink.yaml')
    .spec.template.spec.containers[0]!;
  // Knative's event display, built here, under dead-letter-sink.yaml's security context: the release's own
  // dead-letter entry needs the release's image, which this file's cluster does not have
  await deployOnRealNode(namespace, 'cascade-dead-letters', {
    name: '',
    image: display,
    securityContext: sink.securityContext,
  });
  await deployOnRealNode(namespace, 'display', { name: '', image: display });
  // broker.yaml, its dead-letter sink a plain Service of the same name (no Serving here)
  const broker = cascadeManifest<KnativeObject>('broker.yaml');
  (broker.spec!.delivery as { deadLetterSink: object }).deadLetterSink = {
    ref: { apiVersion: 'v1', kind: 'Service', name: 'cascade-dead-letters' },
  };
  await createCustom('eventing.knative.dev', 'brokers', broker);
  // the filter of triggers.yaml's cascade-job-add and -update, to the event display
  for (const change of ['add', 'update']) {
    await createCustom('eventing.knative.dev', 'triggers', {
      apiVersion: 'eventing.knative.dev/v1',
      kind: 'Trigger',
      metadata: { name: `job-${change}` },
      spec: {
        broker: 'default',
        filter: {
          attributes: { type: `dev.knative.apiserver.resource.${change}`, kind: 'Job', apiversion: 'batch/v1' },
        },
        subscriber: { ref: { apiVersion: 'v1', kind: 'Service', name: 'display' } },
      },
    });
  }
  await createCustom('sources.knative.dev', 'apiserversources', cascadeManifest('apiserversource.yaml'));
  await waitDeploymentsAvailable(namespace, ['cascade-dead-letters', 'display']);
}, 300_000);

afterAll(async () => {
  if (!namespace) return;
  await deleteNamespaceGone(namespace);
}, 180_000);

/** A suspended Job: no pod, only its changes matter here. */
function suspendedJob(name: string, labels?: Record<string, string>): V1Job {
  return {
    metadata: { name, labels },
    spec: {
      suspend: true,
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'x', image: imageReference('event_display') }] },
      },
    },
  };
}

describe("Cascade's ApiServerSource under Knative Eventing v0.50.0", () => {
  it('is Ready, its adapter on the real node', async () => {
    await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'brokers', 'default');
    const source = await waitKnativeReady(namespace, 'sources.knative.dev', 'v1', 'apiserversources', 'cascade-jobs');
    expect(source.status?.conditions?.find((c) => c.type === 'SinkProvided')?.status).toBe('True');
    const pods = await apiClient(adminKubeConfig(), CoreV1Api).listNamespacedPod({
      namespace,
      labelSelector: 'eventing.knative.dev/sourceName=cascade-jobs',
    });
    expect(pods.items.map((p) => p.spec?.nodeName)).toEqual([REAL_NODE.name]);
  }, 180_000);

  it("sends a run's Job change through the Broker to the Trigger's subscriber", async () => {
    await waitKnativeReady(namespace, 'sources.knative.dev', 'v1', 'apiserversources', 'cascade-jobs');
    for (const t of ['job-add', 'job-update']) {
      await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'triggers', t);
    }
    const batch = apiClient(adminKubeConfig(), BatchV1Api);
    const name = `job-${randomBytes(3).toString('hex')}`;
    await batch.createNamespacedJob({ namespace, body: suspendedJob(name, { 'cascade.cascade.net/run': 'run-1' }) });
    // a Job without the label is not watched
    await batch.createNamespacedJob({ namespace, body: suspendedJob(`${name}-other`) });
    await batch.patchNamespacedJob({
      namespace,
      name,
      body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
    });
    const subject = `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`;
    const events = await waitFor(
      async () => {
        const seen = displayedEvents(await deploymentLog(namespace, 'display')).filter((e) => e.subject === subject);
        return seen.some((e) => e.type === 'dev.knative.apiserver.resource.update') && seen;
      },
      { timeoutMs: 60_000, intervalMs: 1000, message: `the Job's add and update events displayed` },
    );
    expect(events.map((e) => e.type)).toContain('dev.knative.apiserver.resource.add');
    expect(events[0]).toMatchObject({ kind: 'Job', apiversion: 'batch/v1', name });
    const all = displayedEvents(await deploymentLog(namespace, 'display'));
    expect(all.some((e) => e.subject?.endsWith(`/jobs/${name}-other`))).toBe(false);
  }, 120_000);
});
