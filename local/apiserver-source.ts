// A local stand-in for Knative's ApiServerSource (Resource mode): watches the
// Jobs that carry Cascade's run label, and the CascadeRuns, and POSTs each
// change to its sink as a binary CloudEvent
// `dev.knative.apiserver.resource.add|update|delete` with the object as data,
// as the real source does on a Knative cluster (knative/apiserversource.yaml). Its sink is
// the Broker stand-in's ingress (local/eventing/) in `npm start`, the cluster
// tests and the benchmarks, as knative/apiserversource.yaml's is the Broker;
// a few fault tests point it at a function directly. On Knative the real
// source is used. Like the real one (a client-go Reflector), a watch the API
// server ends is opened again where it left off (local/kept-watch.ts).
// Where it differs: the objects that exist when it starts, or when it must
// start again from the current state (410 Gone), are delivered as `add`; the
// real one delivers nothing for those lists (the janitor covers what they
// would have shown). It posts each change at once, not one after another.
import { randomUUID } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { CASCADE_RUN_KIND, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { keptWatch } from './kept-watch.ts';

const TYPES: Record<string, string> = { ADDED: 'add', MODIFIED: 'update', DELETED: 'delete' };

/** What knative/apiserversource.yaml watches: Cascade's Jobs, and the CascadeRuns (annotations requesting a cancel). */
export type WatchedResource = 'jobs' | 'cascaderuns';

interface Resource {
  path: (namespace: string) => string;
  apiVersion: string;
  kind: string;
  labelSelector?: string;
}

const RESOURCES: Record<WatchedResource, Resource> = {
  jobs: { path: (ns) => `/apis/batch/v1/namespaces/${ns}/jobs`, apiVersion: 'batch/v1', kind: 'Job', labelSelector: LABEL_RUN },
  cascaderuns: { path: (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${CASCADE_RUN_PLURAL}`, apiVersion: `${GROUP}/${VERSION}`, kind: CASCADE_RUN_KIND },
};

export interface SourceOptions {
  kc: KubeConfig;
  namespace: string;
  /** What is watched (default both, as knative/apiserversource.yaml). */
  resources?: WatchedResource[];
  /** Every change goes to each sink. */
  sink: string | string[];
  /** Told of each delivery given up after its retries, and of a watch that could not restart. */
  onError?: (error: unknown) => void;
  /** Told of each attempt answered 429 or 5xx, or failed to connect, that is retried. */
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
  delivered(): number;
}

type ObjectData = { metadata?: { name?: string; namespace?: string } };

interface Change {
  resource: Resource;
  obj: ObjectData;
}

async function postOnce(sink: string, type: string, { resource, obj }: Change): Promise<{ status: number; detail: string }> {
  const res = await fetch(sink, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': randomUUID(),
      'ce-type': `dev.knative.apiserver.resource.${type}`,
      'ce-source': 'https://kubernetes.default.svc',
      'ce-subject': `${resource.path(obj.metadata?.namespace ?? '')}/${obj.metadata?.name}`,
    },
    body: JSON.stringify({ apiVersion: resource.apiVersion, kind: resource.kind, ...obj }),
  });
  return { status: res.status, detail: await res.text() };
}

/**
 * As Knative delivery does: a connection error, 429 or 5xx is retried with
 * backoff (each retried attempt told to `onRetry`), other answers are final.
 */
async function post(sink: string, type: string, change: Change, tell: Pick<SourceOptions, 'onRetry' | 'onAnswer'>): Promise<void> {
  const what = `${type} of ${change.resource.kind} ${change.obj.metadata?.name} to ${sink}`;
  for (let attempt = 0; attempt < 8; attempt++) {
    const reply = await postOnce(sink, type, change).catch((e: unknown) => ({ status: 0, detail: String((e as { cause?: unknown }).cause ?? e) }));
    tell.onAnswer?.(reply.status);
    if (reply.status !== 0 && reply.status !== 429 && reply.status < 500) return;
    if (attempt < 7) tell.onRetry?.({ ...reply, what });
    await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
  }
  throw new Error(`sink kept refusing a ${what}`);
}

export async function startApiServerSource(opts: SourceOptions): Promise<RunningSource> {
  let count = 0;
  const watches = (opts.resources ?? ['jobs', 'cascaderuns']).map((name) => {
    const resource = RESOURCES[name];
    return keptWatch({
      kc: opts.kc, path: resource.path(opts.namespace), query: resource.labelSelector ? { labelSelector: resource.labelSelector } : {},
      onError: opts.onError,
      on: (phase, obj) => {
        const type = TYPES[phase];
        if (!type) return;
        for (const sink of [opts.sink].flat()) {
          count++;
          post(sink, type, { resource, obj: obj as ObjectData }, opts).catch((e) => opts.onError?.(e));
        }
      },
    });
  });
  await Promise.all(watches.map((w) => w.ready));
  return {
    stop: () => { for (const w of watches) w.stop(); },
    delivered: () => count,
  };
}
