// A stand-in for a Knative Broker's data plane (an MTChannelBasedBroker on the
// InMemoryChannel), written from knative/specs (data-plane.md, broker.md) and
// Knative Eventing's documented behaviour, for `npm start`, the cluster tests
// and the benchmarks:
//
// - ingress: `POST /<namespace>/<broker>` takes a CloudEvent 1.0 in binary or
//   structured mode and answers 202; anything else 400 (405 for another
//   method, 404 for another path);
// - the Triggers and the Broker's delivery of knative/triggers.yaml and
//   knative/broker.yaml: exact-match `filter.attributes`, subscriber, and
//   `delivery` (the Trigger's, else the Broker's): `retry`, `backoffPolicy`,
//   `backoffDelay`, `timeout` per attempt, `deadLetterSink`;
// - each matching Trigger gets the event in binary mode with `Prefer: reply`;
//   no answer, 5xx, 404, 408, 409 and 429 are retried, other failures are
//   final; a 2xx with a body that is not a CloudEvent is a failure (502), a
//   CloudEvent in a 2xx is a reply event that enters the Broker again (with
//   the Broker's TTL, `knativebrokerttl`, one lower: at 0 it is dropped; the
//   subscriber never sees the TTL);
// - an event that failed finally goes to the dead-letter sink with
//   knativeerrordest, knativeerrorcode, knativeerrordata, delivered with the
//   same retry policy;
// - a Destination's ref resolves to the addresses it is given (`Kind/name`),
//   deliveries spread over them round robin, as the activator spreads
//   requests over a revision's pods, and a retry goes to the next replica.
//
// Where it differs from Knative: everything is in memory in this process (an
// event accepted with 202 is lost if the process stops, as with the
// InMemoryChannel's dispatcher; durable classes store it first); no OIDC, no
// TLS, no event type auto-creation, no tracing or metrics, no CloudEvents 0.3
// or batches; one Broker per stand-in; reply events keep their TTL by
// lowering it here; `backoffScale` shortens every backoff wait for tests
// (1 = Knative's waits); Retry-After counts only with `retryAfter` (Knative's
// `delivery-retryafter` feature, off by default) and `retryAfterMax`. Every
// attempt and every failed delivery is recorded (`attempts`, `failures`).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../cluster/paths.ts';
import { parseMessage, withErrorExtensions, type CloudEvent } from './cloudevent.ts';
import { destinationKey, matches, parseBroker, parseTriggers, type EventingConfig, type Trigger } from './config.ts';
import { effectiveDelivery, retryPolicy, type Destination } from './delivery.ts';
import { dispatch, type Attempt, type Route } from './dispatch.ts';
import { readBody, sendEvent } from './http.ts';

export const TTL = 'knativebrokerttl';
const DEFAULT_TTL = 255;

export interface BrokerOptions {
  namespace: string;
  /** The Broker and its Triggers; by default read from knative/broker.yaml and knative/triggers.yaml. */
  config?: EventingConfig;
  /** What each Destination's ref (`Kind/name`, e.g. `Service/cascade`) resolves to: the URLs of its replicas. A uri stands for itself. */
  addresses: Record<string, string[]>;
  /** Multiplies every backoff wait (a test deviation; default 1, Knative's waits). */
  backoffScale?: number;
  /** Knative's `delivery-retryafter` feature (default off). */
  retryAfter?: boolean;
  port?: number;
  log?: (line: string) => void;
  /** Told of every attempt as it is recorded. */
  onAttempt?: (attempt: Attempt) => void;
}

/** A delivery that failed finally: to the dead-letter sink, or lost when there is none or it failed too. */
export interface FailedDelivery {
  trigger: string;
  event: CloudEvent;
  status: number;
  reason: string;
  attempts: number;
  deadLettered: boolean;
}

export interface RunningBroker {
  /** The ingress: where sources and senders POST events. */
  url: string;
  attempts: Attempt[];
  failures: FailedDelivery[];
  /** Replaces the addresses of a `Kind/name` (replicas started or stopped). */
  setAddresses(key: string, urls: string[]): void;
  /** Resolves once no delivery is in flight (retries and replies included). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export function knativeConfig(dir = join(repoRoot, 'knative')): EventingConfig {
  return {
    broker: parseBroker(readFileSync(join(dir, 'broker.yaml'), 'utf8')),
    triggers: parseTriggers(readFileSync(join(dir, 'triggers.yaml'), 'utf8')),
  };
}

/**
 * Routes over a Destination's replicas: each delivery starts at the next
 * replica in turn (round robin across deliveries), and each retry of it goes
 * to the replica after the one its last attempt reached, so that a retry never
 * stays stuck on one replica that is gone.
 */
function roundRobin(addresses: Map<string, string[]>) {
  const turns = new Map<string, number>();
  return (d: Destination, name: string): Route => {
    const key = destinationKey(d);
    const start = turns.get(key) ?? 0;
    turns.set(key, start + 1);
    let attempt = 0;
    return {
      name,
      next() {
        const urls = d.uri ? [d.uri] : addresses.get(key) ?? [];
        return urls.length > 0 ? urls[(start + attempt++) % urls.length] : undefined;
      },
    };
  };
}

function text(b: Uint8Array): string {
  return new TextDecoder().decode(b).slice(0, 300);
}

function dispatchIo(stop: AbortSignal, attempts: Attempt[], onAttempt?: (a: Attempt) => void) {
  return {
    send: (target: string, event: CloudEvent, timeoutMs: number | undefined) => sendEvent(target, event, timeoutMs, stop),
    sleep: (ms: number) => new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      stop.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    }),
    record: (a: Attempt) => {
      if (stop.aborted) return;
      attempts.push(a);
      onAttempt?.(a);
    },
  };
}

/** The ingress: a CloudEvent POSTed to the Broker's path is taken (202), with its TTL (255 when it has none). */
function ingress(path: string, accept: (event: CloudEvent) => void) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (req.url?.split('?')[0]?.replace(/\/$/, '') !== path) return void res.writeHead(404).end();
    const parsed = parseMessage(req.headers, await readBody(req));
    if (parsed.kind !== 'event') return void res.writeHead(400, { 'content-type': 'text/plain' }).end(parsed.kind === 'invalid' ? parsed.reason : 'not a CloudEvent');
    const ttl = Number(parsed.event.attributes[TTL] ?? DEFAULT_TTL);
    if (!(ttl > 0)) return void res.writeHead(400).end();
    accept({ ...parsed.event, attributes: { ...parsed.event.attributes, [TTL]: String(ttl) } });
    res.writeHead(202).end();
  };
}

export async function startBroker(opts: BrokerOptions): Promise<RunningBroker> {
  const config = opts.config ?? knativeConfig();
  const addresses = new Map(Object.entries(opts.addresses));
  const route = roundRobin(addresses);
  const stopping = new AbortController();
  const attempts: Attempt[] = [];
  const failures: FailedDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  const log = opts.log ?? (() => {});
  const io = dispatchIo(stopping.signal, attempts, opts.onAttempt);

  async function deliver(event: CloudEvent, trigger: Trigger): Promise<void> {
    const spec = effectiveDelivery(trigger.delivery, config.broker.delivery);
    const policy = retryPolicy(spec, { backoffScale: opts.backoffScale, retryAfter: opts.retryAfter });
    // The filter takes the Broker's TTL off the event before the subscriber sees it.
    const { [TTL]: ttl, ...attributes } = event.attributes;
    const final = await dispatch({ ...event, attributes }, route(trigger.subscriber, trigger.name), policy, io);
    if (stopping.signal.aborted) return;
    if (final.kind === 'reply') return ingest(ttl, final.event);
    if (final.kind === 'delivered') return;
    let deadLettered = false;
    if (spec.deadLetterSink) {
      const failed = withErrorExtensions(event, final.target, final.status, final.body);
      deadLettered = (await dispatch(failed, route(spec.deadLetterSink, `${trigger.name} dead-letter sink`), policy, io)).kind !== 'failed';
    }
    const failure = { trigger: trigger.name, event, status: final.status, reason: text(final.body), attempts: final.attempts, deadLettered };
    failures.push(failure);
    log(`broker: ${event.attributes.type} ${event.attributes.id} to Trigger ${trigger.name} failed after ${final.attempts} attempt(s) with ${final.status}: ${failure.reason}; ${deadLettered ? 'sent to the dead-letter sink' : 'lost'}`);
  }

  /** A reply event: into the Broker again, one hop less to live. */
  function ingest(ttl: string | undefined, reply: CloudEvent): void {
    const left = Number(ttl ?? DEFAULT_TTL) - 1;
    if (left <= 0) return log(`broker: reply ${reply.attributes.type} ${reply.attributes.id} dropped: its TTL ran out`);
    accept({ ...reply, attributes: { ...reply.attributes, [TTL]: String(left) } });
  }

  function accept(event: CloudEvent): void {
    for (const trigger of config.triggers) {
      if (trigger.broker !== config.broker.name || !matches(trigger.filter, event.attributes)) continue;
      const p = deliver(event, trigger).catch((e: unknown) => log(`broker: ${String(e)}`)).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }

  const path = `/${opts.namespace}/${config.broker.name}`;
  const handle = ingress(path, accept);
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    attempts,
    failures,
    setAddresses: (key, urls) => void addresses.set(key, urls),
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopping.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
    },
  };
}
