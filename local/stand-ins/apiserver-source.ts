// A local stand-in for Knative's ApiServerSource (Resource mode). It watches
// the Jobs that carry Cascade's run label, and the CascadeRuns. It POSTs each
// change to its sink as the real adapter does on a Knative cluster
// (knative/apiserversource.yaml; knative/eventing pkg/adapter/apiserver and
// pkg/adapter/v2, cloudevents/sdk-go's HTTP retries):
//
// - a binary CloudEvent `dev.knative.apiserver.resource.add|update|delete`
//   with the object as JSON data; `source` is the API server's URL as the
//   rest config has it; `subject` the object's path; `time` when it is
//   sent; the extensions `kind`, `name`, `namespace` and `apiversion`;
// - one id per event, kept across its retries;
// - one change at a time per watched resource: the next waits until the
//   sink answered the last (a Reflector calls the adapter's store inline);
// - 5 retries, waiting 100, 200, 400, 800, 1600 ms (50 ms × 2^n), on no
//   answer and on 404, 413, 425, 429, 502, 503, 504. A 500 or any other
//   answer is final. A change given up on is logged and dropped;
// - the shared informer (shared/kube/informer.ts) lists, then watches from
//   there; a watch the API server ends is opened again where it left off.
//   Nothing is sent for what a list shows, at start or after a 410 Gone: the
//   adapter's store ignores a Reflector's Replace.
// Its sink is the Broker stand-in's ingress (local/stand-ins/broker/) in `npm run start:process`,
// the cluster tests and the benchmarks; a few fault tests point it at a
// function directly. On Knative the real source is used.
// Where it differs: the next change waits in memory, where the real
// Reflector stops reading the watch until the send ends; no K_SINK_TIMEOUT,
// no OIDC, no TLS, no CloudEvent overrides.
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { CASCADE_RUN_KIND, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../../shared/api/group.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { apiStatus, connectionOf, RETRY_BUDGET_MS } from '../kube.ts';
import { RETRIED } from '../retry-after.ts';

const TYPES: Record<string, string> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };

/** cloudevents/sdk-go's defaultRetriableErrors: what its HTTP sender retries (besides no answer). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([404, 413, 425, 429, 502, 503, 504]);
/** The adapter's retries: `ContextWithRetriesExponentialBackoff(ctx, 50ms, 5)`. */
export const RETRIES = 5;
const PERIOD_MS = 50;

/** The wait before retry n (1 for the first), as sdk-go's exponential backoff: period × 2^n. */
export function retryWaitMs(n: number): number {
  return PERIOD_MS * 2 ** n;
}

/** What knative/apiserversource.yaml watches: Cascade's Jobs, and the CascadeRuns (annotations requesting a cancel). */
export type WatchedResource = 'jobs' | 'cascaderuns';

export interface Resource {
  path: (namespace: string) => string;
  apiVersion: string;
  kind: string;
  labelSelector?: string;
}

/** Each watched resource's collection, version and kind, as the adapter names them in its events. */
export const RESOURCES: Record<WatchedResource, Resource> = {
  jobs: {
    path: (ns) => `/apis/batch/v1/namespaces/${ns}/jobs`,
    apiVersion: 'batch/v1',
    kind: 'Job',
    labelSelector: LABEL_RUN,
  },
  cascaderuns: {
    path: (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${CASCADE_RUN_PLURAL}`,
    apiVersion: `${GROUP}/${VERSION}`,
    kind: CASCADE_RUN_KIND,
  },
};

export interface SourceOptions {
  kc: KubeConfig;
  namespace: string;
  /** What is watched (default both, as knative/apiserversource.yaml). */
  resources?: WatchedResource[];
  /** Every change goes to each sink. */
  sink: string | string[];
  /** Told of each change given up after its retries, and of a watch that could not restart. */
  onError?: (error: unknown) => void;
  /** Told of each attempt that is retried. */
  onRetry?: (attempt: RetriedAttempt) => void;
  /** Told of every answer of the sink, retried ones included (0: the connection failed). */
  onAnswer?: (status: number) => void;
}

export interface RetriedAttempt {
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  /** The reply body or the connection error. */
  detail: string;
  what: string;
}

export interface RunningSource {
  stop(): void;
  /** Changes sent (each to each sink), answered or given up. */
  delivered(): number;
  /** Lists after the first (a 410 Gone): the changes made before each were not sent, as on Knative. */
  listedAgain(): number;
}

export type ObjectData = { metadata?: { name?: string; namespace?: string } };

export interface Change {
  type: string;
  resource: Resource;
  obj: ObjectData;
}

/** The headers of a change's CloudEvent, as the adapter makes it (pkg/adapter/apiserver/events). */
export function eventHeaders(
  { source, type, resource, obj }: Change & { source: string },
  id: string,
  time: string,
): Record<string, string> {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace ?? '';
  return {
    'content-type': 'application/json',
    'ce-specversion': '1.0',
    'ce-id': id,
    'ce-type': `dev.knative.apiserver.resource.${type}`,
    'ce-source': source,
    'ce-subject': `${resource.path(namespace)}/${name}`,
    'ce-time': time,
    'ce-kind': resource.kind,
    'ce-name': name,
    'ce-namespace': namespace,
    'ce-apiversion': resource.apiVersion,
  };
}

async function postOnce(
  sink: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; detail: string }> {
  const res = await fetch(sink, { method: 'POST', headers, body });
  return { status: res.status, detail: await res.text() };
}

/** One change to one sink: the same event (id, time) on every attempt, retried as sdk-go retries. */
async function send(
  sink: string,
  source: string,
  { type, resource, obj }: Change,
  tell: Pick<SourceOptions, 'onRetry' | 'onAnswer'>,
): Promise<void> {
  const what = `${type} of ${resource.kind} ${obj.metadata?.name} to ${sink}`;
  const headers = eventHeaders({ source, type, resource, obj }, randomUUID(), new Date().toISOString());
  const body = JSON.stringify({ apiVersion: resource.apiVersion, kind: resource.kind, ...obj });
  for (let retry = 0; ; retry++) {
    const reply = await postOnce(sink, headers, body).catch((e: unknown) => ({
      status: 0,
      detail: String((e as { cause?: unknown }).cause ?? e),
    }));
    tell.onAnswer?.(reply.status);
    if (reply.status >= 200 && reply.status <= 299) return;
    if (reply.status !== 0 && !RETRIED_STATUSES.has(reply.status))
      throw new Error(`sink answered ${reply.status} to a ${what}: ${reply.detail.slice(0, 200)}`);
    if (retry >= RETRIES) throw new Error(`sink kept refusing a ${what} (last: ${reply.status || reply.detail})`);
    tell.onRetry?.({ ...reply, what });
    await new Promise((r) => setTimeout(r, retryWaitMs(retry + 1)));
  }
}

/** A queue that runs one task at a time, in order. */
function serial() {
  let last: Promise<void> = Promise.resolve();
  return (task: () => Promise<void>) => {
    last = last.then(task);
  };
}

/**
 * The start's wait for the first lists. A control plane still starting
 * answers 429 or 503: the informer lists again, for up to RETRY_BUDGET_MS
 * before the start fails. Any other refusal fails it at once.
 */
function firstLists(onError: SourceOptions['onError']) {
  let fail: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_resolve, reject) => (fail = reject));
  // Only the start waits on it; a list failing later is told to onError alone.
  failed.catch(() => {});
  let transient: unknown;
  let synced = false;
  const budget = setTimeout(() => fail(transient ?? new Error('the first list did not end')), RETRY_BUDGET_MS);
  return {
    listFailed: (error: unknown) => {
      if (!synced && RETRIED.has(apiStatus(error) ?? 0)) {
        transient = error;
        return;
      }
      onError?.(error);
      fail(error);
    },
    wait: async (lists: Promise<unknown>[]) => {
      try {
        await Promise.race([Promise.all(lists), failed]);
      } finally {
        clearTimeout(budget);
      }
    },
    synced: () => {
      synced = true;
    },
  };
}

export async function startApiServerSource(opts: SourceOptions): Promise<RunningSource> {
  let count = 0;
  let stopped = false;
  const source = opts.kc.getCurrentCluster()?.server ?? '';
  const conn = connectionOf(opts.kc);
  const first = firstLists(opts.onError);
  const watches = (opts.resources ?? ['jobs', 'cascaderuns']).map((name) => {
    const resource = RESOURCES[name];
    const queues = [opts.sink].flat().map((sink) => ({ sink, enqueue: serial() }));
    const query: Record<string, string> = resource.labelSelector ? { labelSelector: resource.labelSelector } : {};
    return inform({
      transport: httpsTransport(conn, resource.path(opts.namespace), query),
      // A watch lost is opened again by the informer; a list that failed is told.
      failed: (what, error) => {
        if (what === 'list') first.listFailed(error);
      },
      on: (phase, obj, listed) => {
        const type = TYPES[phase];
        if (!type || listed) return;
        for (const { sink, enqueue } of queues) {
          enqueue(async () => {
            if (stopped) return;
            await send(sink, source, { type, resource, obj: obj as ObjectData }, opts).catch((e: unknown) =>
              opts.onError?.(e),
            );
            count++;
          });
        }
      },
    });
  });
  try {
    await first.wait(watches.map((w) => w.synced));
    first.synced();
  } catch (error) {
    for (const w of watches) w.stop();
    throw error;
  }
  return {
    stop: () => {
      stopped = true;
      for (const w of watches) w.stop();
    },
    delivered: () => count,
    listedAgain: () => watches.reduce((n, w) => n + w.lists() - 1, 0),
  };
}
