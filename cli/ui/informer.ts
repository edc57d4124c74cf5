// The ui's only reads of runs and scenarios: the shared informer
// (shared/kube/informer.ts) over client-node, which brings the kubeconfig's
// every way to authenticate, exec plugins included. The page never polls.
import type { KubeConfig } from '@kubernetes/client-node';
import { inform as informer, type ListPage, type Transport, type WatchEnd } from '../../shared/kube/informer.ts';
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
  upsert(item: T): void;
  remove(item: T): void;
  /** The watch is open again after a list: what was listed is in. */
  current(): void;
  /** The list or the watch failed (kubectl's words); it is tried again after a while. */
  failed(error: unknown): void;
}

const PAGE = 500;

export function collectionPath(plural: string, namespace: string | undefined): string {
  const ns = namespace === undefined ? '' : `/namespaces/${namespace}`;
  return `/apis/${GROUP}/${VERSION}${ns}/${plural}`;
}

/** How client-node's watch ended: its error's HTTP status tells. */
function endOf(error: unknown): WatchEnd {
  if (!error) return 'ended';
  const code = (error as { statusCode?: number }).statusCode;
  if (code === 401 || code === 403) return 'refused';
  return code === 410 ? 'gone' : 'failed';
}

/** Lists in pages of 500 (a 10,000-run namespace is 20 calls, not one huge answer) and watches, through client-node. */
function kubeTransport(kc: KubeConfig, plural: string, namespace: string | undefined): Transport {
  const path = collectionPath(plural, namespace);
  return {
    async list(cont) {
      const { CustomObjectsApi } = await clientNode();
      const api = kc.makeApiClient(CustomObjectsApi);
      const at = { group: GROUP, version: VERSION, plural, limit: PAGE, _continue: cont };
      return (await retryTooManyRequests(() =>
        namespace === undefined
          ? api.listClusterCustomObject(at)
          : api.listNamespacedCustomObject({ ...at, namespace }),
      )) as ListPage;
    },
    watch(resourceVersion, calls) {
      let ended = false;
      let abort: (() => void) | undefined;
      const end = (how: WatchEnd) => {
        if (ended) return;
        ended = true;
        calls.end(how);
      };
      void clientNode()
        .then(({ Watch }) =>
          new Watch(kc).watch(
            path,
            { resourceVersion, allowWatchBookmarks: true },
            (type: string, object: unknown) => calls.line(type, object),
            (error: unknown) => end(endOf(error)),
          ),
        )
        .then(
          (controller) => {
            if (ended) return controller.abort();
            abort = () => controller.abort();
            calls.answered();
          },
          (error: unknown) => end(endOf(error)),
        );
      return {
        stop() {
          ended = true;
          abort?.();
        },
      };
    },
  };
}

/** Keeps `handlers` told of the resources until `signal` aborts. Resolves once the first list is in (or failed). */
export function inform<T extends Item>(w: Watched<T>): Promise<void> {
  const { handlers, signal } = w;
  let failedOnce: () => void = () => {};
  const failed = new Promise<void>((r) => (failedOnce = r));
  const i = informer({
    transport: kubeTransport(w.kc, w.plural, w.namespace),
    on: (change, object) => (change === 'DELETED' ? handlers.remove(object as T) : handlers.upsert(object as T)),
    opened: (open) => open && handlers.current(),
    failed: (what, error) => {
      // 410 Gone is no failure: the informer lists again.
      if (signal.aborted || what === 'gone') return;
      handlers.failed(error ?? new Error('the watch ended'));
      failedOnce();
    },
  });
  signal.addEventListener('abort', () => i.stop(), { once: true });
  return Promise.race([i.synced, failed]);
}
