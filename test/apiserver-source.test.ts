// The ApiServerSource stand-in (local/stand-ins/apiserver-source.ts) on the real API
// server, sending as Knative's adapter does: the event's attributes and
// extensions, one id kept across retries, sdk-go's retried statuses and
// waits, one change at a time per resource, nothing for what existed before;
// and, through the synchronous Broker stand-in, each send waiting for the
// subscriber's answer.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServerSource, type RunningSource } from '../local/stand-ins/apiserver-source.ts';
import { startBroker, type RunningBroker } from '../local/stand-ins/broker/broker.ts';
import { startDeadLetterSink } from '../local/stand-ins/broker/dead-letter-sink.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { brokerConfig } from './support/broker-config.ts';
import { adminKubeConfig, createTestNamespace, sleep, waitFor } from './support/kube.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  answeredAt?: number;
}

/** A sink answering each request with the next status of `statuses` (the last one again), after `delayMs`. */
async function sink(statuses: number[], delayMs = 0) {
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req, res) => {
    const r: Received = { headers: req.headers, body: '', at: performance.now() };
    received.push(r);
    maxOpen = Math.max(maxOpen, ++open);
    req.on('data', (c: Buffer) => {
      r.body += c.toString();
    });
    req.on('end', () =>
      setTimeout(() => {
        open--;
        r.answeredAt = performance.now();
        if (!res.destroyed) res.writeHead(statuses[Math.min(received.indexOf(r), statuses.length - 1)]!).end();
      }, delayMs),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    maxOpen: () => maxOpen,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const job = (name: string): V1Job => ({
  metadata: { name, labels: { [LABEL_RUN]: 'r' } },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'busybox' }] } } },
});

let source: RunningSource | undefined;
let broker: RunningBroker | undefined;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  source?.stop();
  await broker?.stop();
  await Promise.all(stops.splice(0).map((s) => s()));
  source = undefined;
  broker = undefined;
});

async function setUp(statuses: number[], delayMs = 0) {
  const ns = await createTestNamespace('apiserver-source');
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const s = await sink(statuses, delayMs);
  stops.push(s.stop);
  return { ns, batch, s };
}

const adds = (received: Received[]) =>
  received.filter((r) => r.headers['ce-type'] === 'dev.knative.apiserver.resource.add');

describe("the ApiServerSource stand-in, as Knative's adapter sends", () => {
  it('sends nothing for what exists at start; a new Job: time, source the API server, subject, kind, name, namespace, apiversion', async () => {
    const { ns, batch, s } = await setUp([202]);
    const before = await batch.createNamespacedJob({ namespace: ns, body: job('before') });
    const errors: unknown[] = [];
    source = await startApiServerSource({
      kc: adminKubeConfig(),
      namespace: ns,
      resources: ['jobs'],
      sink: s.url,
      onError: (e) => errors.push(e),
    });
    await batch.createNamespacedJob({ namespace: ns, body: job('after') });
    await waitFor(() => adds(s.received).length >= 1, { message: 'the add of Job after' });
    await sleep(300);
    // The Job controller may still change Job before after the list: that update is sent, as the adapter sends it.
    const ofBefore = s.received.filter((r) => r.headers['ce-name'] === 'before');
    expect(ofBefore.map((r) => r.headers['ce-type'])).toEqual(
      ofBefore.map(() => 'dev.knative.apiserver.resource.update'),
    );
    const versions = ofBefore.map((r) => (JSON.parse(r.body) as V1Job).metadata!.resourceVersion);
    expect(versions).not.toContain(before.metadata!.resourceVersion);
    const [h] = adds(s.received).map((r) => r.headers);
    expect(h).toMatchObject({
      'ce-specversion': '1.0',
      'ce-source': adminKubeConfig().getCurrentCluster()!.server,
      'ce-subject': `/apis/batch/v1/namespaces/${ns}/jobs/after`,
      'ce-kind': 'Job',
      'ce-name': 'after',
      'ce-namespace': ns,
      'ce-apiversion': 'batch/v1',
      'content-type': 'application/json',
    });
    expect(Date.parse(String(h!['ce-time']))).toBeGreaterThan(Date.now() - 60_000);
    expect(errors).toEqual([]);
  });

  it('retries a 503 with the same id, waiting 100 then 200 ms; a 500 is not retried', async () => {
    const { ns, batch, s } = await setUp([503, 503, 202]);
    source = await startApiServerSource({ kc: adminKubeConfig(), namespace: ns, resources: ['jobs'], sink: s.url });
    await batch.createNamespacedJob({ namespace: ns, body: job('retried') });
    await waitFor(() => s.received.length >= 3, { message: 'three attempts' });
    const [a, b, c] = s.received;
    expect(new Set([a, b, c].map((r) => r!.headers['ce-id'])).size).toBe(1);
    expect(new Set([a, b, c].map((r) => r!.headers['ce-time'])).size).toBe(1);
    expect(b!.at - a!.answeredAt!).toBeGreaterThanOrEqual(95);
    expect(c!.at - b!.answeredAt!).toBeGreaterThanOrEqual(195);
    source.stop();

    const other = await setUp([500]);
    const errors: unknown[] = [];
    source = await startApiServerSource({
      kc: adminKubeConfig(),
      namespace: other.ns,
      resources: ['jobs'],
      sink: other.s.url,
      onError: (e) => errors.push(e),
    });
    await other.batch.createNamespacedJob({ namespace: other.ns, body: job('refused') });
    await waitFor(() => errors.length >= 1, { message: 'the 500 given up on' });
    expect(adds(other.s.received)).toHaveLength(1);
    expect(String(errors[0])).toMatch(/answered 500/);
  });

  it('one change at a time per resource: the next is sent once the sink answered the last', async () => {
    const { ns, batch, s } = await setUp([202], 200);
    source = await startApiServerSource({ kc: adminKubeConfig(), namespace: ns, resources: ['jobs'], sink: s.url });
    await Promise.all(['a', 'b', 'c'].map((n) => batch.createNamespacedJob({ namespace: ns, body: job(n) })));
    await waitFor(() => adds(s.received).length >= 3 && s.received.every((r) => r.answeredAt), {
      message: 'three adds answered',
    });
    expect(s.maxOpen()).toBe(1);
    for (let i = 1; i < s.received.length; i++)
      expect(s.received[i]!.at).toBeGreaterThanOrEqual(s.received[i - 1]!.answeredAt! - 1);
  });

  it("through the synchronous Broker, each send waits for the subscriber's answer", async () => {
    const { ns, batch, s } = await setUp([200], 300);
    broker = await startBroker({
      namespace: ns,
      config: brokerConfig('sync'),
      addresses: { 'Service/cascade': [s.url], 'Service/cascade-dead-letters': [] },
    });
    const answers: number[] = [];
    source = await startApiServerSource({
      kc: adminKubeConfig(),
      namespace: ns,
      resources: ['jobs'],
      sink: broker.url,
      onAnswer: (status) => answers.push(status),
    });
    await batch.createNamespacedJob({ namespace: ns, body: job('one') });
    await batch.createNamespacedJob({ namespace: ns, body: job('two') });
    await waitFor(() => adds(s.received).length >= 2 && answers.length >= 2, { message: 'both adds answered' });
    const [one, two] = adds(s.received);
    expect(two!.at).toBeGreaterThanOrEqual(one!.answeredAt! - 1);
    expect(s.maxOpen()).toBe(1);
    expect(answers.slice(0, 2)).toEqual([202, 202]);
  });

  it("through the synchronous Broker, one failing event holds the resource's stream for its whole retry schedule", async () => {
    const { ns, batch, s } = await setUp([500, 500, 500, 500, 500, 500, 200]);
    const dls = await startDeadLetterSink();
    stops.push(dls.stop);
    // Backoff waits scaled by 1/100: 10, 20, 40, 80, 160 ms instead of 1, 2, 4, 8, 16 s.
    broker = await startBroker({
      namespace: ns,
      backoffScale: 0.01,
      config: brokerConfig('sync'),
      addresses: { 'Service/cascade': [s.url], 'Service/cascade-dead-letters': [dls.url] },
    });
    source = await startApiServerSource({
      kc: adminKubeConfig(),
      namespace: ns,
      resources: ['jobs'],
      sink: broker.url,
    });
    await batch.createNamespacedJob({ namespace: ns, body: job('poison') });
    await batch.createNamespacedJob({ namespace: ns, body: job('next') });
    await waitFor(() => adds(s.received).some((r) => r.headers['ce-name'] === 'next' && r.answeredAt), {
      message: "the next Job's add delivered",
    });
    const poison = adds(s.received).filter((r) => r.headers['ce-name'] === 'poison');
    const next = adds(s.received).find((r) => r.headers['ce-name'] === 'next')!;
    expect(poison).toHaveLength(6);
    expect(next.at).toBeGreaterThanOrEqual(poison.at(-1)!.answeredAt! - 1);
    expect(next.at - poison[0]!.at).toBeGreaterThanOrEqual(300);
    expect(dls.received.map((e) => e.attributes.name)).toEqual(['poison']);
  });
});
