// The Knative Broker stand-in (local/stand-ins/broker/) over real HTTP, with small
// subscribers that answer as told: the ingress, synchronous by default and
// asynchronous behind the annotation, the Triggers' filters, retry and
// backoff counts, the 502 of a 2xx that is no CloudEvent, reply events, the
// dead-letter sink and when its extensions come, round robin over replicas,
// the per-attempt timeout. The Triggers are knative/triggers.yaml's, read from
// the file; only the backoff waits are scaled down.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { knativeConfig, startBroker, type RunningBroker } from '../local/stand-ins/broker/broker.ts';
import { parseBroker } from '../local/stand-ins/broker/config.ts';
import { localBrokerAnnotations } from '../local/knative/cascade-deploy.ts';
import { startDeadLetterSink, type DeadLetterSink } from '../local/stand-ins/broker/dead-letter-sink.ts';
import { effectiveDelivery } from '../local/stand-ins/broker/delivery.ts';
import { brokerConfig } from './support/broker-config.ts';

type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };
interface Subscriber {
  url: string;
  received: { headers: IncomingHttpHeaders; body: string }[];
  stop(): Promise<void>;
}

/** An HTTP server that answers each request with the next of `answers` (the last one again when they run out). */
async function subscriber(answers: Answer[]): Promise<Subscriber> {
  const received: Subscriber['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      const a = answers[Math.min(received.length - 1, answers.length - 1)]!;
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(a.status, a.headers).end(a.body ?? '');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let broker: RunningBroker | undefined;
let dls: DeadLetterSink | undefined;
let subs: Subscriber[] = [];
afterEach(async () => {
  await broker?.stop();
  await dls?.stop();
  await Promise.all(subs.map((s) => s.stop()));
  broker = undefined;
  dls = undefined;
  subs = [];
});

/** The synchronous stand-in with knative/'s Triggers, Service/cascade at `replicas`, waits at 1/1000. */
async function setUp(replicas: Answer[][]) {
  subs = await Promise.all(replicas.map((answers) => subscriber(answers)));
  dls = await startDeadLetterSink();
  broker = await startBroker({
    namespace: 'ns',
    backoffScale: 0.001,
    config: brokerConfig('sync'),
    addresses: { 'Service/cascade': subs.map((s) => s.url), 'Service/cascade-dead-letters': [dls.url] },
  });
  return { broker, dls, subs };
}

const event = (type: string, id = 'e1', data: unknown = { runname: 'r' }) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'ce-specversion': '1.0',
    'ce-id': id,
    'ce-source': '/test',
    'ce-type': type,
  },
  body: JSON.stringify(data),
});

describe('ingress', () => {
  it('202 for a binary or a structured CloudEvent; 400 for a plain body or a malformed event; 405 and 404 otherwise', async () => {
    const { broker: b } = await setUp([[{ status: 200 }]]);
    expect((await fetch(b.url, event(RUN_REQUESTED))).status).toBe(202);
    const structured = JSON.stringify({
      specversion: '1.0',
      id: 's1',
      source: '/test',
      type: RUN_REQUESTED,
      data: { iuid: 'x' },
    });
    expect(
      (
        await fetch(b.url, {
          method: 'POST',
          headers: { 'content-type': 'application/cloudevents+json' },
          body: structured,
        })
      ).status,
    ).toBe(202);
    expect(
      (await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"iuid":"x"}' }))
        .status,
    ).toBe(400);
    expect(
      (await fetch(b.url, { method: 'POST', headers: { 'ce-specversion': '1.0', 'ce-id': 'x' }, body: '' })).status,
    ).toBe(400);
    expect((await fetch(b.url)).status).toBe(405);
    expect((await fetch(b.url.replace('/ns/default', '/other/default'), event(RUN_REQUESTED))).status).toBe(404);
    await b.settled();
    expect(b.attempts.map((a) => [a.route, a.id, a.status, a.outcome])).toEqual(
      expect.arrayContaining([
        ['cascade-run-requested', 'e1', 200, 'delivered'],
        ['cascade-run-requested', 's1', 200, 'delivered'],
      ]),
    );
    expect(b.attempts).toHaveLength(2);
  });

  it('the subscriber gets the event in binary mode, with Prefer: reply and the data as sent', async () => {
    const {
      broker: b,
      subs: [s],
    } = await setUp([[{ status: 200 }]]);
    await fetch(b.url, event(MODULE_FINISHED, 'm1', { runname: 'r', modulename: 'm', moduleresult: 'ok' }));
    await b.settled();
    expect(s!.received[0]!.headers).toMatchObject({
      'ce-id': 'm1',
      'ce-type': MODULE_FINISHED,
      'ce-source': '/test',
      'content-type': 'application/json',
      prefer: 'reply',
    });
    expect(JSON.parse(s!.received[0]!.body)).toEqual({ runname: 'r', modulename: 'm', moduleresult: 'ok' });
  });

  it('an event no Trigger filters for goes nowhere', async () => {
    const {
      broker: b,
      subs: [s],
    } = await setUp([[{ status: 200 }]]);
    expect((await fetch(b.url, event('com.example.other'))).status).toBe(202);
    await b.settled();
    expect([b.attempts, s!.received]).toEqual([[], []]);
  });
});

describe("the ApiServerSource's Triggers", () => {
  const resourceEvent = (id: string, ext: Record<string, string>, verb = 'update') => {
    const e = event(`dev.knative.apiserver.resource.${verb}`, id, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'r' } },
    });
    return {
      ...e,
      headers: { ...e.headers, ...Object.fromEntries(Object.entries(ext).map(([k, v]) => [`ce-${k}`, v])) },
    };
  };

  it("another source's resource events never reach the function: only a Job of batch/v1 or a CascadeRun does", async () => {
    const {
      broker: b,
      subs: [s],
    } = await setUp([[{ status: 200 }]]);
    const run = { kind: 'CascadeRun', apiversion: 'cascade.cascade.net/v1alpha1', name: 'r', namespace: 'ns' };
    await fetch(b.url, resourceEvent('pod', { kind: 'Pod', apiversion: 'v1', name: 'p', namespace: 'ns' }));
    await fetch(b.url, resourceEvent('no-kind', {}));
    await fetch(
      b.url,
      resourceEvent('other-job', { kind: 'Job', apiversion: 'example.com/v1', name: 'j', namespace: 'ns' }),
    );
    await fetch(b.url, resourceEvent('run-delete', run, 'delete'));
    await fetch(b.url, resourceEvent('run-update', run));
    await fetch(b.url, resourceEvent('job', { kind: 'Job', apiversion: 'batch/v1', name: 'j', namespace: 'ns' }));
    await b.settled();
    expect(s!.received.map((r) => r.headers['ce-id'])).toEqual(['run-update', 'job']);
    expect(b.attempts.map((a) => [a.route, a.id])).toEqual([
      ['cascade-cascaderun-update', 'run-update'],
      ['cascade-job-update', 'job'],
    ]);
  });
});

describe("delivery (the Triggers' retry 5, exponential backoff, dead-letter sink)", () => {
  it('a 400 goes to the dead-letter sink after one attempt, with knativeerrordest, knativeerrorcode and knativeerrordata', async () => {
    const {
      broker: b,
      dls: d,
      subs: [s],
    } = await setUp([
      [{ status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"unknown run \\"r\\""}' }],
    ]);
    await fetch(b.url, event(MODULE_FINISHED, 'poison'));
    await b.settled();
    expect(s!.received).toHaveLength(1);
    expect(d.received).toHaveLength(1);
    expect(d.received[0]!.attributes).toMatchObject({
      id: 'poison',
      type: MODULE_FINISHED,
      knativeerrordest: s!.url,
      knativeerrorcode: '400',
    });
    expect(Buffer.from(d.received[0]!.attributes.knativeerrordata!, 'base64').toString()).toBe(
      '{"error":"unknown run \\"r\\""}',
    );
    expect(b.failures).toMatchObject([
      { trigger: 'cascade-module-finished', status: 400, attempts: 1, deadLettered: true },
    ]);
  });

  it('a 500 every time: 6 attempts (retry 5), then the dead-letter sink', async () => {
    const {
      broker: b,
      dls: d,
      subs: [s],
    } = await setUp([[{ status: 500, body: '{"error":"unusable"}' }]]);
    await fetch(b.url, event(RUN_REQUESTED, 'p500'));
    await b.settled();
    expect(s!.received).toHaveLength(6);
    expect(b.attempts.filter((a) => a.route === 'cascade-run-requested').map((a) => a.outcome)).toEqual([
      ...Array(5).fill('retry'),
      'failed',
    ]);
    expect(d.received.map((e) => [e.attributes.id, e.attributes.knativeerrorcode])).toEqual([['p500', '500']]);
  });

  it('a 503 once, then 200: retried and delivered; nothing dead-lettered', async () => {
    const { broker: b, dls: d } = await setUp([[{ status: 503 }, { status: 200 }]]);
    await fetch(b.url, event(RUN_REQUESTED));
    await b.settled();
    expect(b.attempts.map((a) => [a.status, a.outcome])).toEqual([
      [503, 'retry'],
      [200, 'delivered'],
    ]);
    expect([b.failures, d.received]).toEqual([[], []]);
  });

  it("a 200 with a JSON body is a failure (502), retried 5 times, then dead-lettered without Knative's error extensions", async () => {
    const { broker: b, dls: d } = await setUp([
      [{ status: 200, headers: { 'content-type': 'application/json' }, body: '{"run":"r"}' }],
    ]);
    await fetch(b.url, event(RUN_REQUESTED));
    await b.settled();
    expect(b.attempts.map((a) => [a.route, a.status])).toEqual([
      ...Array(6).fill(['cascade-run-requested', 502]),
      ['cascade-run-requested dead-letter sink', 202],
    ]);
    expect(Object.keys(d.received[0]!.attributes).filter((k) => k.startsWith('knativeerror'))).toEqual([]);
  });

  it('no answer (connection refused): dead-lettered with knativeerrorcode 500 and the dispatch error as knativeerrordata', async () => {
    const {
      broker: b,
      dls: d,
      subs: [s],
    } = await setUp([[{ status: 200 }]]);
    await s!.stop();
    expect((await fetch(b.url, event(RUN_REQUESTED, 'gone'))).status).toBe(202);
    expect(d.received.map((e) => e.attributes.knativeerrorcode)).toEqual(['500']);
    expect(Buffer.from(d.received[0]!.attributes.knativeerrordata!, 'base64').toString()).toMatch(/^dispatch error: /);
  });

  it("a failure body over 768 bytes: Knative's dispatcher would panic, so the event is lost, not dead-lettered; the sender gets 500", async () => {
    const { broker: b, dls: d } = await setUp([[{ status: 400, body: 'x'.repeat(769) }]]);
    expect((await fetch(b.url, event(RUN_REQUESTED, 'big'))).status).toBe(500);
    expect(d.received).toEqual([]);
    expect(b.failures).toMatchObject([{ status: 400, deadLettered: false }]);
  });

  it('a reply event enters the Broker again and is routed by the Triggers', async () => {
    const reply = {
      'ce-specversion': '1.0',
      'ce-id': 'reply-1',
      'ce-source': '/fn',
      'ce-type': MODULE_FINISHED,
      'content-type': 'application/json',
    };
    const {
      broker: b,
      subs: [s],
    } = await setUp([[{ status: 200, headers: reply, body: '{}' }, { status: 200 }]]);
    await fetch(b.url, event(RUN_REQUESTED, 'first'));
    await b.settled();
    expect(b.attempts.map((a) => [a.route, a.id, a.outcome])).toEqual([
      ['cascade-run-requested', 'first', 'reply'],
      ['cascade-module-finished', 'reply-1', 'delivered'],
    ]);
    expect(s!.received.map((r) => r.headers['ce-knativebrokerttl'])).toEqual([undefined, undefined]);
  });

  it('a subscriber that always replies with an event its Trigger takes: the TTL ends the loop', async () => {
    const reply = {
      'ce-specversion': '1.0',
      'ce-id': 'again',
      'ce-source': '/fn',
      'ce-type': RUN_REQUESTED,
      'content-type': 'application/json',
    };
    const {
      broker: b,
      subs: [s],
    } = await setUp([[{ status: 200, headers: reply, body: '{}' }]]);
    await fetch(b.url, {
      ...event(RUN_REQUESTED, 'loop'),
      headers: { ...event(RUN_REQUESTED, 'loop').headers, 'ce-knativebrokerttl': '3' },
    });
    await b.settled();
    expect(b.attempts.map((a) => [a.id, a.outcome])).toEqual([
      ['loop', 'reply'],
      ['again', 'reply'],
      ['again', 'reply'],
    ]);
    expect(s!.received).toHaveLength(3);
  });

  it('a retry goes to the next replica: one replica failing, every event delivered at its first or second attempt', async () => {
    const {
      broker: b,
      subs: [r0, r1],
    } = await setUp([[{ status: 503 }], [{ status: 200 }]]);
    await Promise.all(Array.from({ length: 6 }, (_, i) => fetch(b.url, event(RUN_REQUESTED, `n${i}`))));
    await b.settled();
    expect(b.failures).toEqual([]);
    expect(b.attempts.every((a) => (a.target === r0!.url ? a.outcome === 'retry' : a.outcome === 'delivered'))).toBe(
      true,
    );
    expect(r1!.received).toHaveLength(6);
    expect(Math.max(...b.attempts.map((a) => a.attempt))).toBeLessThanOrEqual(2);
  });

  it('attempts go round robin over the replicas', async () => {
    const {
      broker: b,
      subs: [r0, r1],
    } = await setUp([[{ status: 200 }], [{ status: 200 }]]);
    for (let i = 0; i < 6; i++) await fetch(b.url, event(RUN_REQUESTED, `rr${i}`));
    await b.settled();
    expect([r0!.received.length, r1!.received.length]).toEqual([3, 3]);
  });

  it("an attempt without an answer within the Trigger's timeout is retried", async () => {
    subs = [await subscriber([{ status: 200, delayMs: 5000 }, { status: 200 }])];
    dls = await startDeadLetterSink();
    const config = brokerConfig('sync');
    const triggers = config.triggers.map((t) => ({
      ...t,
      delivery: { ...effectiveDelivery(t.delivery, config.broker.delivery), timeout: 'PT0.2S' },
    }));
    broker = await startBroker({
      namespace: 'ns',
      backoffScale: 0.001,
      config: { ...config, triggers },
      addresses: { 'Service/cascade': [subs[0]!.url], 'Service/cascade-dead-letters': [dls.url] },
    });
    await fetch(broker.url, event(RUN_REQUESTED));
    await broker.settled();
    expect(broker.attempts.map((a) => [a.status, a.outcome, a.detail])).toEqual([
      [undefined, 'retry', expect.stringMatching(/^timeout/)],
      [200, 'delivered', undefined],
    ]);
  });

  it("an event whose every attempt timed out reaches the dead-letter sink without Knative's error extensions", async () => {
    subs = [await subscriber([{ status: 200, delayMs: 5000 }])];
    dls = await startDeadLetterSink();
    const config = brokerConfig('sync');
    const triggers = config.triggers.map((t) => ({
      ...t,
      delivery: { ...effectiveDelivery(t.delivery, config.broker.delivery), retry: 1, timeout: 'PT0.1S' },
    }));
    broker = await startBroker({
      namespace: 'ns',
      backoffScale: 0.001,
      config: { ...config, triggers },
      addresses: { 'Service/cascade': [subs[0]!.url], 'Service/cascade-dead-letters': [dls.url] },
    });
    expect((await fetch(broker.url, event(RUN_REQUESTED, 'slow'))).status).toBe(202);
    expect(
      dls.received.map((e) => [e.attributes.id, Object.keys(e.attributes).filter((k) => k.startsWith('knativeerror'))]),
    ).toEqual([['slow', []]]);
  });
});

describe("the synchronous Broker (Knative's default) and the async handler", () => {
  it("the ingress follows the Broker's annotation: knative/broker.yaml ships none (synchronous); the local overlay's makes it async", async () => {
    dls = await startDeadLetterSink();
    const addresses = { 'Service/cascade': [], 'Service/cascade-dead-letters': [dls.url] };
    const shipped = readFileSync(join(repoRoot, 'knative', 'broker.yaml'), 'utf8');
    expect(knativeConfig().broker.async).toBeUndefined();
    broker = await startBroker({ namespace: 'ns', addresses });
    expect(broker.async).toBe(false);
    await broker.stop();
    const doc = load(shipped) as { metadata: Record<string, unknown> };
    const overlaid = dump({ ...doc, metadata: { ...doc.metadata, annotations: localBrokerAnnotations(true) } });
    const config = { ...knativeConfig(), broker: parseBroker(overlaid) };
    broker = await startBroker({ namespace: 'ns', config, addresses });
    expect(broker.async).toBe(true);
  });

  it("synchronous: the sender's answer waits for the subscriber's", async () => {
    const { broker: b } = await setUp([[{ status: 200, delayMs: 300 }]]);
    expect(b.async).toBe(false);
    const started = performance.now();
    expect((await fetch(b.url, event(RUN_REQUESTED))).status).toBe(202);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(b.attempts.map((a) => a.outcome)).toEqual(['delivered']);
  });

  it('synchronous: a failing event is answered after its whole retry schedule and the dead-letter sink, 202 once dead-lettered', async () => {
    const { broker: b, dls: d } = await setUp([[{ status: 503 }]]);
    expect((await fetch(b.url, event(RUN_REQUESTED, 'held'))).status).toBe(202);
    expect(b.attempts.map((a) => a.outcome)).toEqual([...Array(5).fill('retry'), 'failed', 'delivered']);
    expect(d.received.map((e) => e.attributes.id)).toEqual(['held']);
  });

  it('synchronous: 500 when a delivery failed and so did its dead-letter sink', async () => {
    const { broker: b, dls: d } = await setUp([[{ status: 503 }]]);
    await d.stop();
    expect((await fetch(b.url, event(RUN_REQUESTED, 'lost'))).status).toBe(500);
    expect(b.failures).toMatchObject([{ deadLettered: false }]);
  });

  it('the annotation messaging.knative.dev/async-handler: "true": 202 before the subscriber answers', async () => {
    subs = [await subscriber([{ status: 200, delayMs: 500 }])];
    dls = await startDeadLetterSink();
    broker = await startBroker({
      namespace: 'ns',
      backoffScale: 0.001,
      config: brokerConfig('async'),
      addresses: { 'Service/cascade': [subs[0]!.url], 'Service/cascade-dead-letters': [dls.url] },
    });
    expect(broker.async).toBe(true);
    expect((await fetch(broker.url, event(RUN_REQUESTED))).status).toBe(202);
    expect(broker.attempts).toEqual([]);
    await broker.settled();
    expect(broker.attempts.map((a) => a.outcome)).toEqual(['delivered']);
  });
});
