// CascadeRuns through the API server: list, get, patch, and follow one or wait
// for a new one with the informer (never polling).
import { GROUP, VERSION, CASCADE_RUN_PLURAL } from '../../shared/api/group.ts';
import { retryTooManyRequests } from '../../shared/kube/too-many-requests.ts';
import { LABEL_IUID_HASH, shortHash } from '../../shared/names.ts';
import { isFinal, type RunObject } from '../runs/run-object.ts';
import type { Kube } from './connect.ts';
import { firstInformed, informUntil } from './informed.ts';

const base = `/apis/${GROUP}/${VERSION}`;
/** The runs' collection in `namespace`, or of every namespace when it is undefined. */
export const runsPath = (namespace: string | undefined) =>
  namespace === undefined ? `${base}/${CASCADE_RUN_PLURAL}` : `${base}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`;
const runPath = (namespace: string, name: string) => `${runsPath(namespace)}/${encodeURIComponent(name)}`;

export interface RunList {
  items: RunObject[];
  metadata?: { resourceVersion?: string };
}

/** The runs of `namespace`, or of every namespace when it is undefined: one GET. */
export function listRuns(kube: Kube, namespace: string | undefined, labelSelector?: string): Promise<RunList> {
  return retryTooManyRequests(() => kube.rest<RunList>('GET', runsPath(namespace), { query: { labelSelector } }));
}

export function getRun(kube: Kube, namespace: string, name: string): Promise<RunObject> {
  return retryTooManyRequests(() => kube.rest<RunObject>('GET', runPath(namespace, name)));
}

/** Applies a JSON patch to the run (e.g. an annotation, as `kubectl annotate` sets it). */
export function patchRun(kube: Kube, namespace: string, name: string, patch: object[]): Promise<RunObject> {
  return retryTooManyRequests(() =>
    kube.rest<RunObject>('PATCH', runPath(namespace, name), {
      body: patch,
      contentType: 'application/json-patch+json',
    }),
  );
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Stop once this holds (default: the run is in a final phase). */
  until?: (run: RunObject) => boolean;
}

/**
 * Calls `onChange` with the run now and at every change, until `until` holds
 * (resolved with the run then) or `signal` aborts; rejects when the run is deleted.
 */
export async function followRun(
  kube: Kube,
  name: string,
  onChange: (run: RunObject) => void,
  opts: FollowOptions = {},
): Promise<RunObject> {
  const { signal, until = isFinal } = opts;
  let run = await getRun(kube, kube.namespace, name);
  onChange(run);
  if (until(run) || signal?.aborted) return run;
  let deleted = false;
  const w = informUntil(
    kube,
    {
      path: runsPath(kube.namespace),
      query: { fieldSelector: `metadata.name=${name}` },
      on: (change, object) => {
        const now = object as RunObject;
        if (change === 'DELETED') deleted = true;
        else if (now.metadata.resourceVersion !== run.metadata.resourceVersion) onChange((run = now));
        if (deleted || until(run)) w.done();
      },
    },
    signal,
  );
  await w.over;
  if (deleted) throw new Error(`cascaderun ${name} was deleted`);
  return run;
}

export const iuidSelector = (iuid: string) => `${LABEL_IUID_HASH}=${shortHash(iuid, 16)}`;

/** The names of the runs of `iuid` now. */
export async function runsOfIuid(kube: Kube, iuid: string): Promise<Set<string>> {
  const list = await listRuns(kube, kube.namespace, iuidSelector(iuid));
  return new Set(list.items.filter((r) => r.spec?.pid === iuid).map((r) => r.metadata.name ?? ''));
}

/** The first run of `iuid` not among `known`, from the informer's first list on; undefined when `signal` aborts first. */
export function awaitNewRun(
  kube: Kube,
  iuid: string,
  known: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<RunObject | undefined> {
  const at = { path: runsPath(kube.namespace), query: { labelSelector: iuidSelector(iuid) } };
  const isNew = (run: RunObject) => run.spec?.pid === iuid && !known.has(run.metadata.name ?? '');
  return firstInformed<RunObject>(kube, at, isNew, signal);
}
