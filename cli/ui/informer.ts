// The ui's only reads of runs and scenarios: the shared informer
// (shared/kube/informer.ts) over its node:https transport. The page never polls.
import { inform as informer } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { GROUP, VERSION } from '../../shared/api/group.ts';
import type { Kube } from '../kube/connect.ts';

export interface Item {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
}

/** What is watched, for whom, until when. */
export interface Watched<T extends Item> {
  kube: Kube;
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

export function collectionPath(plural: string, namespace: string | undefined): string {
  const ns = namespace === undefined ? '' : `/namespaces/${namespace}`;
  return `/apis/${GROUP}/${VERSION}${ns}/${plural}`;
}

/** Keeps `handlers` told of the resources until `signal` aborts. Resolves once the first list is in (or failed). */
export function inform<T extends Item>(w: Watched<T>): Promise<void> {
  const { handlers, signal } = w;
  let failedOnce: () => void = () => {};
  const failed = new Promise<void>((r) => (failedOnce = r));
  const i = informer({
    transport: httpsTransport(w.kube.conn, collectionPath(w.plural, w.namespace), {}, w.kube.rest),
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
