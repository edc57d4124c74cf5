// CascadeRuns through the API server: list, get, the runs of an iuid, and follow one
// with a watch (never polling), started again from the last resourceVersion
// whenever the API server ends it.
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client.ts';
import { GROUP, VERSION, CASCADE_RUN_PLURAL } from '../../shared/api/group.ts';
import { LABEL_IUID_HASH, shortHash } from '../../shared/names.ts';
import { isFinal, type RunObject } from '../runs/run-object.ts';
import type { Connection } from './connect.ts';
import { retryTooManyRequests } from './retry.ts';

const AT = { group: GROUP, version: VERSION, plural: CASCADE_RUN_PLURAL };

export async function listRuns(
  kc: KubeConfig,
  namespace: string | undefined,
  labelSelector?: string,
): Promise<RunList> {
  const { CustomObjectsApi } = await clientNode();
  const api = kc.makeApiClient(CustomObjectsApi);
  const list = await retryTooManyRequests(() =>
    namespace === undefined
      ? api.listClusterCustomObject({ ...AT, labelSelector })
      : api.listNamespacedCustomObject({ ...AT, namespace, labelSelector }),
  );
  return list as RunList;
}

export interface RunList {
  items: RunObject[];
  metadata?: { resourceVersion?: string };
}

export async function getRun(kc: KubeConfig, namespace: string, name: string): Promise<RunObject> {
  const { CustomObjectsApi } = await clientNode();
  const api = kc.makeApiClient(CustomObjectsApi);
  return (await retryTooManyRequests(() => api.getNamespacedCustomObject({ ...AT, namespace, name }))) as RunObject;
}

/** Applies a JSON patch to the run (e.g. an annotation, as `kubectl annotate` sets it). */
export async function patchRun(kc: KubeConfig, namespace: string, name: string, patch: object[]): Promise<RunObject> {
  const { CustomObjectsApi } = await clientNode();
  const api = kc.makeApiClient(CustomObjectsApi);
  return (await retryTooManyRequests(() =>
    api.patchNamespacedCustomObject({ ...AT, namespace, name, body: patch }),
  )) as RunObject;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Stop once this holds (default: the run is in a final phase). */
  until?: (run: RunObject) => boolean;
}

/**
 * Calls `onChange` with the run now and at every change, until `until` holds
 * (resolved with the run then) or `signal` aborts.
 */
export async function followRun(
  conn: Connection,
  name: string,
  onChange: (run: RunObject) => void,
  opts: FollowOptions = {},
): Promise<RunObject> {
  const { kc, namespace } = conn;
  const { signal, until = isFinal } = opts;
  const { Watch } = await clientNode();
  let run = await getRun(kc, namespace, name);
  onChange(run);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`;
  while (!until(run) && !signal?.aborted) {
    run = await new Promise<RunObject>((resolve, reject) => {
      let latest = run;
      let gone = false;
      let controller: AbortController | undefined;
      const query = {
        fieldSelector: `metadata.name=${name}`,
        resourceVersion: run.metadata.resourceVersion,
        allowWatchBookmarks: true,
      };
      void new Watch(kc)
        .watch(
          path,
          query,
          (phase, obj: RunObject & { code?: number }) => {
            if (phase === 'ERROR') gone = obj.code === 410;
            else if (phase === 'DELETED') reject(new Error(`cascaderun ${name} was deleted`));
            else if (phase === 'BOOKMARK')
              latest = { ...latest, metadata: { ...latest.metadata, resourceVersion: obj.metadata.resourceVersion } };
            else {
              latest = obj;
              onChange(obj);
              if (until(obj)) controller?.abort();
            }
          },
          () => {
            // Ended (by the server, by us, or 410 Gone): read the run again after 410, else go on from where it was.
            if (gone)
              getRun(kc, namespace, name).then((r) => {
                onChange(r);
                resolve(r);
              }, reject);
            else resolve(latest);
          },
        )
        .then((c) => {
          controller = c;
          if (signal?.aborted) c.abort();
          else signal?.addEventListener('abort', () => c.abort(), { once: true });
        }, reject);
    });
  }
  return run;
}

/** The runs of `iuid` now, and the resourceVersion to watch for new ones from. */
export async function runsOfIuid(
  kc: KubeConfig,
  namespace: string,
  iuid: string,
): Promise<{ names: Set<string>; resourceVersion: string }> {
  const { CustomObjectsApi } = await clientNode();
  const list = (await kc
    .makeApiClient(CustomObjectsApi)
    .listNamespacedCustomObject({ ...AT, namespace, labelSelector: iuidSelector(iuid) })) as {
    items: RunObject[];
    metadata: { resourceVersion: string };
  };
  return {
    names: new Set(list.items.filter((r) => r.spec?.pid === iuid).map((r) => r.metadata.name ?? '')),
    resourceVersion: list.metadata.resourceVersion,
  };
}

const iuidSelector = (iuid: string) => `${LABEL_IUID_HASH}=${shortHash(iuid, 16)}`;

/**
 * The first run of `iuid` created after `since` (from runsOfIuid), seen by a
 * watch that is started again (after a fresh list) whenever the API server
 * ends it; undefined when `signal` aborts first.
 */
export async function awaitNewRun(
  conn: Connection,
  iuid: string,
  since: { names: Set<string>; resourceVersion: string },
  signal: AbortSignal,
): Promise<RunObject | undefined> {
  const { kc, namespace } = conn;
  let resourceVersion = since.resourceVersion;
  while (!signal.aborted) {
    const seen = await watchNewRun(conn, iuid, { known: since.names, resourceVersion }, signal);
    if (seen) return seen;
    const now = await runsOfIuid(kc, namespace, iuid);
    const added = [...now.names].find((n) => !since.names.has(n));
    if (added) return getRun(kc, namespace, added);
    resourceVersion = now.resourceVersion;
  }
  return undefined;
}

async function watchNewRun(
  { kc, namespace }: Connection,
  iuid: string,
  from: { known: Set<string>; resourceVersion: string },
  signal: AbortSignal,
): Promise<RunObject | undefined> {
  const { Watch } = await clientNode();
  const { known, resourceVersion } = from;
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`;
  return new Promise((resolve, reject) => {
    let found: RunObject | undefined;
    let controller: AbortController | undefined;
    const query = { labelSelector: iuidSelector(iuid), resourceVersion };
    void new Watch(kc)
      .watch(
        path,
        query,
        (phase, obj: RunObject) => {
          if (found || phase !== 'ADDED' || obj.spec?.pid !== iuid || known.has(obj.metadata.name ?? '')) return;
          found = obj;
          controller?.abort();
        },
        () => resolve(found),
      )
      .then((c) => {
        controller = c;
        if (found || signal.aborted) c.abort();
        else signal.addEventListener('abort', () => c.abort(), { once: true });
      }, reject);
  });
}
