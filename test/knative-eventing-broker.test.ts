// Cascade's Broker (knative/broker.yaml) under real Knative Eventing v0.50.0
// running as pods on the real node (local/knative/eventing/): its
// controllers and webhook make it Ready, in both modes (with the local
// cluster's class and its annotation messaging.knative.dev/async-handler, as
// npm start's overlay sets them, and without the annotation, the synchronous
// default); a Trigger's filter routes an event posted to the
// broker ingress to its subscriber; a subscriber that keeps refusing gets the
// Broker's retries, then the event goes to the dead-letter sink with what
// Knative adds. Subscribers are plain Deployments and Services: Knative
// Serving is not installed by this file, so the Broker's dead-letter sink is
// a Service named as dead-letter-sink.yaml's Knative Service, running the
// event display under its security context.
import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, type V1Container } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, createNamespace } from '../local/kube.ts';
import { localBrokerAnnotations } from '../local/knative/cascade-deploy.ts';
import { imageReference } from '../local/knative/eventing/components.ts';
import { MODULE_IMAGE } from '../local/node/images.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import {
  brokerIngressUrl,
  cascadeManifest,
  deleteNamespaceGone,
  deployOnRealNode,
  deploymentLog,
  displayedEvents,
  readKnative,
  useKnativeEventing,
  waitDeploymentsAvailable,
  waitKnativeReady,
  type KnativeObject,
  postEvent,
} from './support/knative-eventing.ts';

useKnativeEventing();

const ASYNC = 'messaging.knative.dev/async-handler';
const brokers = { async: 'default', sync: 'sync' } as const;
const SHOWN = 'net.cascade.test.shown.v1';
const REFUSED = 'net.cascade.test.refused.v1';
let namespace = '';

/** broker.yaml with the local cluster's annotations, its dead-letter sink a plain Service of the same name (no Serving here), under `name`. */
function cascadeBroker(name: string, async: boolean): KnativeObject {
  const broker = cascadeManifest<KnativeObject & { apiVersion: string; kind: string }>('broker.yaml');
  const annotations = { ...broker.metadata.annotations, ...localBrokerAnnotations(async) };
  const delivery = broker.spec!.delivery as { deadLetterSink: { ref: Record<string, string> } };
  delivery.deadLetterSink.ref = { apiVersion: 'v1', kind: 'Service', name: delivery.deadLetterSink.ref.name! };
  return { ...broker, metadata: { ...broker.metadata, name, annotations } };
}

function trigger(broker: string, name: string, type: string, service: string) {
  return {
    apiVersion: 'eventing.knative.dev/v1',
    kind: 'Trigger',
    metadata: { name },
    spec: {
      broker,
      filter: { attributes: { type } },
      subscriber: { ref: { apiVersion: 'v1', kind: 'Service', name: service } },
    },
  };
}

async function create(plural: string, body: object): Promise<void> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  await custom.createNamespacedCustomObject({ group: 'eventing.knative.dev', version: 'v1', namespace, plural, body });
}

beforeAll(async () => {
  namespace = await createNamespace(adminKubeConfig(), 'knative-eventing-broker');
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
  // busybox's httpd answers a POST to / 404 Not Found (no index.html), which Knative retries, and logs each request
  await deployOnRealNode(namespace, 'refuser', {
    name: '',
    image: MODULE_IMAGE,
    command: ['/bin/busybox', 'httpd', '-f', '-vv', '-p', '8080', '-h', '/tmp'],
  });
  for (const [mode, name] of Object.entries(brokers)) {
    await create('brokers', cascadeBroker(name, mode === 'async'));
    await create('triggers', trigger(name, `${name}-shown`, SHOWN, 'display'));
    await create('triggers', trigger(name, `${name}-refused`, REFUSED, 'refuser'));
  }
  await waitDeploymentsAvailable(namespace, ['cascade-dead-letters', 'display', 'refuser']);
}, 300_000);

afterAll(async () => {
  if (!namespace) return;
  // gone before Knative's controllers are, so that their finalizers are done
  await deleteNamespaceGone(namespace);
}, 180_000);

describe('Knative Eventing v0.50.0 on the real node', () => {
  it.each(Object.entries(brokers))(
    "makes Cascade's Broker Ready (%s) over an InMemoryChannel that carries its mode",
    async (mode, name) => {
      const broker = await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'brokers', name);
      expect(broker.status?.address?.url).toBe(
        `http://broker-ingress.knative-eventing.svc.cluster.local/${namespace}/${name}`,
      );
      // the webhook defaulted the channel template from config-br-defaults
      expect(broker.spec?.config).toMatchObject({ kind: 'ConfigMap', name: 'config-br-default-channel' });
      const channel = await readKnative(
        namespace,
        'messaging.knative.dev',
        'v1',
        'inmemorychannels',
        `${name}-kne-trigger`,
      );
      expect(channel.metadata.annotations?.[ASYNC]).toBe(mode === 'async' ? 'true' : undefined);
      for (const t of [`${name}-shown`, `${name}-refused`]) {
        const ready = await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'triggers', t);
        // the webhook labels each Trigger with its Broker
        expect(ready.metadata.labels?.['eventing.knative.dev/broker']).toBe(name);
      }
    },
    180_000,
  );

  it.each(Object.entries(brokers))(
    'delivers an event the filter matches to the subscriber, and no other (%s)',
    async (_mode, name) => {
      await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'triggers', `${name}-shown`);
      const url = brokerIngressUrl(namespace, name);
      const shown = randomUUID();
      const other = randomUUID();
      expect(await postEvent(url, { id: other, type: 'net.cascade.test.unmatched.v1' })).toBe(202);
      expect(await postEvent(url, { id: shown, type: SHOWN, data: { hello: name } })).toBe(202);
      const event = await waitFor(
        async () => displayedEvents(await deploymentLog(namespace, 'display')).find((e) => e.id === shown),
        { timeoutMs: 30_000, intervalMs: 500, message: `event ${shown} displayed` },
      );
      expect(event).toMatchObject({ type: SHOWN, source: 'cascade.test/knative-eventing' });
      const seen = displayedEvents(await deploymentLog(namespace, 'display'));
      expect(seen.filter((e) => e.id === shown)).toHaveLength(1);
      expect(seen.some((e) => e.id === other)).toBe(false);
    },
    60_000,
  );

  it("retries a refused event with the Broker's delivery, then dead-letters it with Knative's extensions", async () => {
    for (const name of Object.values(brokers)) {
      await waitKnativeReady(namespace, 'eventing.knative.dev', 'v1', 'triggers', `${name}-refused`);
    }
    const ids = { async: randomUUID(), sync: randomUUID() };
    const sent = await Promise.all(
      (['async', 'sync'] as const).map(async (mode) => {
        const url = brokerIngressUrl(namespace, brokers[mode]);
        const status = await postEvent(url, { id: ids[mode], type: REFUSED });
        // what the dead-letter sink had when the ingress answered
        const atAnswer = displayedEvents(await deploymentLog(namespace, 'cascade-dead-letters'));
        return { mode, status, deadLetteredAtAnswer: atAnswer.some((e) => e.id === ids[mode]) };
      }),
    );
    // the asynchronous ingress answers at once; the synchronous one once delivery ended, dead-letter sink included
    expect(sent).toEqual([
      { mode: 'async', status: 202, deadLetteredAtAnswer: false },
      { mode: 'sync', status: 202, deadLetteredAtAnswer: true },
    ]);
    const dead = await waitFor(
      async () => {
        const events = displayedEvents(await deploymentLog(namespace, 'cascade-dead-letters'));
        const both = [ids.async, ids.sync].map((id) => events.find((e) => e.id === id));
        return both.every(Boolean) && both;
      },
      { timeoutMs: 90_000, intervalMs: 1000, message: 'both refused events dead-lettered' },
    );
    for (const event of dead) {
      // without OIDC the channel's Subscription delivers to the subscriber itself, which is the destination
      expect(event).toMatchObject({
        type: REFUSED,
        knativeerrorcode: '404',
        knativeerrordest: `http://refuser.${namespace}.svc.cluster.local`,
      });
      expect(Buffer.from(event!.knativeerrordata!, 'base64').toString()).toContain('404 Not Found');
    }
    // broker.yaml's retry: 5, so six attempts per event
    const attempts = (await deploymentLog(namespace, 'refuser')).match(/response:404/g) ?? [];
    expect(attempts).toHaveLength(12);
  }, 150_000);
});
