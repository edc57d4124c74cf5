// A list, then a watch from its resourceVersion, started again whenever the
// API server ends it; after 410 Gone, a fresh list that replaces what was
// known. The ui's only reads of runs and scenarios: the page never polls.
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from '../kube/client.ts';
import { retryTooManyRequests } from '../kube/retry.ts';
import { GROUP, VERSION } from '../../shared/api/group.ts';

export interface Item {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
}

/** What is watched, for whom, until when. */
export interface Watched<T extends Item> {
  kc: KubeConfig;
  /** The custom resources' plural, of the group cascade.cascade.net. */
  plural: string;
  /** undefined: every namespace. */
  namespace: string | undefined;
  handlers: InformerHandlers<T>;
  signal: AbortSignal;
}

export interface InformerHandlers<T extends Item> {
  /** Everything there is now (first list, and each list after 410 Gone). */
  replace(items: T[]): void;
  upsert(item: T): void;
  remove(item: T): void;
  /** The list or the watch failed (kubectl's words); it is tried again after a while. */
  failed(error: unknown): void;
}

interface ListPage<T> {
  items: T[];
  metadata: { resourceVersion?: string; continue?: string };
}

const PAGE = 500;
const RETRY_MS = 2000;

export function collectionPath(plural: string, namespace: string | undefined): string {
  const ns = namespace === undefined ? '' : `/namespaces/${namespace}`;
  return `/apis/${GROUP}/${VERSION}${ns}/${plural}`;
}

/** Every item, in pages of 500 (a 10,000-run namespace is 20 calls, not one huge answer). */
async function listAll<T>(kc: KubeConfig, plural: string, namespace: string | undefined) {
  const { CustomObjectsApi } = await clientNode();
  const api = kc.makeApiClient(CustomObjectsApi);
  const items: T[] = [];
  let cont: string | undefined;
  let resourceVersion = '';
  do {
    const at = { group: GROUP, version: VERSION, plural, limit: PAGE, _continue: cont };
    const page = (await retryTooManyRequests(() =>
      namespace === undefined ? api.listClusterCustomObject(at) : api.listNamespacedCustomObject({ ...at, namespace }),
    )) as ListPage<T>;
    items.push(...page.items);
    cont = page.metadata.continue || undefined;
    resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
  } while (cont);
  return { items, resourceVersion };
}

/** One watch until the API server ends it; resolves with the resourceVersion to go on from ('' after 410 Gone). */
async function watchOnce<T extends Item>(w: Watched<T>, path: string, from: string): Promise<string> {
  const { kc, handlers, signal } = w;
  const { Watch } = await clientNode();
  let resourceVersion = from;
  return new Promise((resolve, reject) => {
    const query = { resourceVersion, allowWatchBookmarks: true };
    const onEvent = (phase: string, obj: T & { code?: number }) => {
      if (phase === 'ERROR') {
        if (obj.code === 410) resourceVersion = '';
        return;
      }
      resourceVersion = obj.metadata.resourceVersion ?? resourceVersion;
      if (phase === 'ADDED' || phase === 'MODIFIED') handlers.upsert(obj);
      else if (phase === 'DELETED') handlers.remove(obj);
    };
    new Watch(kc)
      .watch(path, query, onEvent, (err: unknown) => (err && !signal.aborted ? reject(err) : resolve(resourceVersion)))
      .then((c) => {
        if (signal.aborted) c.abort();
        else signal.addEventListener('abort', () => c.abort(), { once: true });
      }, reject);
  });
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** Keeps `handlers` told of the resources until `signal` aborts. Resolves once the first list is in (or failed). */
export async function inform<T extends Item>(w: Watched<T>): Promise<void> {
  const { kc, plural, namespace, handlers, signal } = w;
  const path = collectionPath(plural, namespace);
  let resolveFirst: () => void = () => {};
  const first = new Promise<void>((r) => (resolveFirst = r));
  const loop = async () => {
    let from = '';
    while (!signal.aborted) {
      try {
        if (!from) {
          const listed = await listAll<T>(kc, plural, namespace);
          handlers.replace(listed.items);
          from = listed.resourceVersion;
          resolveFirst();
        }
        from = await watchOnce(w, path, from);
      } catch (error) {
        if (signal.aborted) break;
        handlers.failed(error);
        resolveFirst();
        from = '';
        await pause(RETRY_MS, signal);
      }
    }
    resolveFirst();
  };
  void loop();
  return first;
}
