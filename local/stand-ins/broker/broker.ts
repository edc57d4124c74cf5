// A stand-in for a Knative Broker's data plane (an MTChannelBasedBroker on the
// InMemoryChannel), written from knative/specs (data-plane.md, broker.md) and
// Knative Eventing's documented behaviour, for `npm run start:process`, the cluster tests
// and the benchmarks:
//
// - ingress: `POST /<namespace>/<broker>` takes a CloudEvent 1.0 in binary or
//   structured mode; anything else 400 (405 for another method, 404 for
//   another path). As Knative's default Broker (MT channel-based over the
//   InMemoryChannel, pkg/channel/fanout), it answers only once every
//   Trigger's delivery ended: 202 when each was delivered or dead-lettered,
//   500 when one was lost, 500 after 15 minutes. With the Broker's
//   annotation `messaging.knative.dev/async-handler: "true"` (Eventing 1.17+)
//   it answers 202 at once and delivers in the background;
// - the Triggers and the Broker's delivery of knative/triggers.yaml and
//   knative/broker.yaml: exact-match `filter.attributes`, subscriber, and
//   `delivery` (the Trigger's, else the Broker's): `retry`, `backoffPolicy`,
//   `backoffDelay`, `timeout` per attempt, `deadLetterSink`;
// - each matching Trigger gets the event in binary mode with `Prefer: reply`.
//   No answer, 5xx, 404, 408, 409 and 429 are retried; other failures are
//   final. A 2xx with a body that is not a CloudEvent is a failure (502). A
//   CloudEvent in a 2xx is a reply event that enters the Broker again, with
//   the Broker's TTL (`knativebrokerttl`) one lower. At 0 it is dropped. The
//   subscriber never sees the TTL;
// - an event that failed finally goes to the dead-letter sink, delivered with
//   the same retry policy. It carries knativeerrordest, knativeerrorcode and
//   knativeerrordata only when Knative adds them (cloudevent.ts, deadLetter).
//   A failure body over 768 bytes makes Knative's dispatcher panic: it is
//   logged and the event lost;
// - a Destination's ref resolves to the addresses it is given (`Kind/name`),
//   deliveries spread over them round robin, as the activator spreads
//   requests over a revision's pods, and a retry goes to the next replica.
//
// Where it differs from Knative:
// - everything is in memory in this process. An event in flight is lost if the
//   process stops, as with the InMemoryChannel's dispatcher; durable classes
//   store it first;
// - the panic loses one event, not every event in flight;
// - no OIDC, no TLS, no event type auto-creation, no tracing or metrics, no
//   CloudEvents 0.3 or batches; one Broker per stand-in;
// - reply events keep their TTL by lowering it here;
// - `backoffScale` shortens every backoff wait for tests (1 = Knative's waits);
// - Retry-After counts only with `retryAfter` and `retryAfterMax`. On Knative
//   it is the `delivery-retryafter` feature, off by default.
// Every attempt and every failed delivery is recorded (`attempts`, `failures`).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../../cluster/paths.ts';
import { deadLetter, ERROR_BODY_MAX, parseMessage, type CloudEvent } from './cloudevent.ts';
import { destinationKey, matches, parseBroker, parseTriggers, type EventingConfig, type Trigger } from './config.ts';
import { effectiveDelivery, retryPolicy, type Destination } from './delivery.ts';
import { dispatch, type Attempt, type Final, type Route } from './dispatch.ts';
import { readBody, sendEvent } from './http.ts';

export const TTL = 'knativebrokerttl';
const DEFAULT_TTL = 255;
/** knative/eventing pkg/channel/fanout: the fan-out's answer waits at most this long. */
const FANOUT_TIMEOUT_MS = 15 * 60_000;

export interface BrokerOptions {
  namespace: string;
  /** The Broker and its Triggers; by default read from knative/broker.yaml and knative/triggers.yaml. */
  config?: EventingConfig;
  /** What each Destination's ref (`Kind/name`, e.g. `Service/cascade`) resolves to: the URLs of its replicas. A uri stands for itself. */
  addresses: Record<string, string[]>;
  /** Multiplies every backoff wait (a test deviation; default 1, Knative's waits). */
  backoffScale?: number;
  /**
   * Answer 202 before delivering (Knative's async handler). Default: the
   * Broker's annotation `messaging.knative.dev/async-handler`, else
   * synchronous, as Knative's default Broker.
   */
  async?: boolean;
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
  /** The ingress answers 202 before it delivers (the async-handler annotation, or the option). */
  async: boolean;
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
 * Routes over a Destination's replicas. Each delivery starts at the next
 * replica in turn (round robin across deliveries). Each retry of it goes to the
 * replica after the one its last attempt reached, so that a retry never stays
 * stuck on one replica that is gone.
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
        const urls = d.uri ? [d.uri] : (addresses.get(key) ?? []);
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
    send: (target: string, event: CloudEvent, timeoutMs: number | undefined) =>
      sendEvent(target, event, timeoutMs, stop),
    // Once stopped, no wait: the retries left fail at once, their send aborted too.
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        if (stop.aborted) return resolve();
        const timer = setTimeout(resolve, ms);
        stop.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      }),
    record: (a: Attempt) => {
      if (stop.aborted) return;
      attempts.push(a);
      onAttempt?.(a);
    },
  };
}

/**
 * The ingress: a CloudEvent POSTed to the Broker's path is taken, with its TTL
 * (255 when it has none). Synchronous (Knative's default): the answer waits
 * for `fanOut`, 202 when every Trigger's delivery ended well, else 500.
 * Asynchronous: 202 at once, the fan-out in the background.
 */
function ingress(path: string, async: boolean, fanOut: (event: CloudEvent) => Promise<boolean>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (req.url?.split('?')[0]?.replace(/\/$/, '') !== path) return void res.writeHead(404).end();
    const parsed = parseMessage(req.headers, await readBody(req));
    if (parsed.kind !== 'event')
      return void res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end(parsed.kind === 'invalid' ? parsed.reason : 'not a CloudEvent');
    const ttl = Number(parsed.event.attributes[TTL] ?? DEFAULT_TTL);
    if (!(ttl > 0)) return void res.writeHead(400).end();
    const done = fanOut({ ...parsed.event, attributes: { ...parsed.event.attributes, [TTL]: String(ttl) } });
    if (async) return void res.writeHead(202).end();
    res.writeHead((await done) ? 202 : 500).end();
  };
}

/** A delivery that failed finally, to the dead-letter sink as Knative sends it, when there is one. */
async function toDeadLetterSink(
  event: CloudEvent,
  final: Extract<Final, { kind: 'failed' }>,
  sink: Destination | undefined,
  send: (e: CloudEvent, sink: Destination) => Promise<Final>,
) {
  const letter = sink ? deadLetter(event, { ...final, dest: final.target }) : undefined;
  if (letter?.kind === 'panic') {
    return {
      deadLettered: false,
      outcome: `lost: its ${letter.bytes}-byte failure body would make Knative's dispatcher panic (over ${ERROR_BODY_MAX} bytes)`,
    };
  }
  const deadLettered =
    letter?.kind === 'event' && sink !== undefined && (await send(letter.event, sink)).kind !== 'failed';
  return { deadLettered, outcome: deadLettered ? 'sent to the dead-letter sink' : 'lost' };
}

async function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, port = 0) {
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Knative's fan-out answers an error after 15 minutes; the deliveries still go on. */
function withinFanOutTimeout(all: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), FANOUT_TIMEOUT_MS);
  });
  return Promise.race([all, timeout]).finally(() => clearTimeout(timer));
}

/** Tracks each promise until it settles. */
function tracker() {
  const inFlight = new Set<Promise<void>>();
  return {
    track(p: Promise<unknown>): void {
      const tracked = p
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    },
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/** What a fan-out needs: the Broker's config, where its Triggers' subscribers are, and where it records what happened. */
interface Delivering {
  config: EventingConfig;
  route: ReturnType<typeof roundRobin>;
  io: ReturnType<typeof dispatchIo>;
  stopping: AbortSignal;
  failures: FailedDelivery[];
  inFlight: ReturnType<typeof tracker>;
  log: (message: string) => void;
  opts: Pick<BrokerOptions, 'backoffScale' | 'retryAfter'>;
}

/** The Broker's fan-out of one event to every Trigger that takes it, replies and dead letters included. */
function fanOutOf({
  config,
  route,
  io,
  stopping,
  failures,
  inFlight,
  log,
  opts,
}: Delivering): (event: CloudEvent) => Promise<boolean> {
  /** One Trigger's delivery, retries and dead-letter sink included: true when it ended well (delivered, replied, or dead-lettered). */
  async function deliver(event: CloudEvent, trigger: Trigger): Promise<boolean> {
    const spec = effectiveDelivery(trigger.delivery, config.broker.delivery);
    const policy = retryPolicy(spec, { backoffScale: opts.backoffScale, retryAfter: opts.retryAfter });
    // The filter takes the Broker's TTL off the event before the subscriber sees it.
    const { [TTL]: ttl, ...attributes } = event.attributes;
    const final = await dispatch({ ...event, attributes }, route(trigger.subscriber, trigger.name), policy, io);
    if (stopping.aborted) return false;
    if (final.kind === 'reply') return ingest(ttl, final.event);
    if (final.kind === 'delivered') return true;
    const { deadLettered, outcome } = await toDeadLetterSink(event, final, spec.deadLetterSink, (e, sink) =>
      dispatch(e, route(sink, `${trigger.name} dead-letter sink`), policy, io),
    );
    const failure = {
      trigger: trigger.name,
      event,
      status: final.status,
      reason: text(final.body),
      attempts: final.attempts,
      deadLettered,
    };
    failures.push(failure);
    log(
      `broker: ${event.attributes.type} ${event.attributes.id} to Trigger ${trigger.name} failed after ${final.attempts} attempt(s) with ${final.status}: ${failure.reason}; ${outcome}`,
    );
    return deadLettered;
  }

  /** A reply event: into the Broker again, one hop less to live; the reply's own fan-out is waited for, as the channel sends it to the ingress. */
  async function ingest(ttl: string | undefined, reply: CloudEvent): Promise<boolean> {
    const left = Number(ttl ?? DEFAULT_TTL) - 1;
    if (left > 0) return fanOut({ ...reply, attributes: { ...reply.attributes, [TTL]: String(left) } });
    log(`broker: reply ${reply.attributes.type} ${reply.attributes.id} dropped: its TTL ran out`);
    return true;
  }

  /**
   * Every Trigger of the Broker takes the event (the filter drops what does
   * not match), in parallel; true when every delivery ended well within the
   * fan-out's timeout.
   */
  function fanOut(event: CloudEvent): Promise<boolean> {
    const deliveries: Promise<boolean>[] = [];
    for (const trigger of config.triggers) {
      if (trigger.broker !== config.broker.name || !matches(trigger.filter, event.attributes)) continue;
      const p = deliver(event, trigger).catch((e: unknown) => {
        log(`broker: ${String(e)}`);
        return false;
      });
      inFlight.track(p);
      deliveries.push(p);
    }
    return withinFanOutTimeout(Promise.all(deliveries).then((oks) => oks.every(Boolean)));
  }

  return fanOut;
}

export async function startBroker(opts: BrokerOptions): Promise<RunningBroker> {
  const config = opts.config ?? knativeConfig();
  const addresses = new Map(Object.entries(opts.addresses));
  const stopping = new AbortController();
  const attempts: Attempt[] = [];
  const failures: FailedDelivery[] = [];
  const inFlight = tracker();
  const log = opts.log ?? (() => {});
  const io = dispatchIo(stopping.signal, attempts, opts.onAttempt);
  const fanOut = fanOutOf({
    config,
    route: roundRobin(addresses),
    io,
    stopping: stopping.signal,
    failures,
    inFlight,
    log,
    opts,
  });

  const path = `/${opts.namespace}/${config.broker.name}`;
  const async = opts.async ?? config.broker.async === true;
  const handle = ingress(path, async, fanOut);
  const { server, port } = await listen(handle, opts.port);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    async,
    attempts,
    failures,
    setAddresses: (key, urls) => void addresses.set(key, urls),
    settled: inFlight.settled,
    async stop() {
      stopping.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inFlight.settled();
    },
  };
}
