// The commands' watches: each one the informer of shared/kube over its
// node:https transport. A list the API server refuses (401, 403, 404) or a
// watch it refuses ends the wait with that error; anything else is tried
// again by the informer, and after 410 Gone it lists again. The informer's
// sockets and timers do not keep the process alive, so a command that waits
// on one holds the process itself.
import { apiStatus } from '../../shared/kube/errors.ts';
import { inform, type Informer, type WatchChange } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import type { Kube } from './connect.ts';

export interface Informed {
  /** The collection's path, such as /api/v1/namespaces/NS/pods. */
  path: string;
  /** labelSelector, fieldSelector. */
  query?: Record<string, string>;
  /** Each change, the first list's included (`listed`). */
  on: (change: WatchChange, object: unknown, listed: boolean) => void;
  /** After each list: every object it holds. */
  listed?: (items: readonly unknown[]) => void;
  /** Keep each object whole, so that a deletion a list finds is told with the last copy seen. */
  whole?: boolean;
}

/** A refusal that trying again will not change: 401, 403, 404. */
const refused = (error: unknown) => [401, 403, 404].includes(apiStatus(error) ?? 0);

/** Informs `w.on` until `signal` aborts or `done` is called; rejects when the API server refuses. */
export function informUntil(kube: Kube, w: Informed, signal?: AbortSignal): { done: () => void; over: Promise<void> } {
  let done: () => void = () => {};
  let i: Informer | undefined;
  const over = new Promise<void>((resolve, reject) => {
    const hold = setInterval(() => {}, 1 << 30);
    const finish = (error?: unknown) => {
      clearInterval(hold);
      i?.stop();
      if (error) reject(error as Error);
      else resolve();
    };
    done = () => finish();
    i = inform({
      transport: httpsTransport(kube.conn, w.path, w.query, kube.rest),
      on: w.on,
      listed: w.listed,
      whole: w.whole,
      failed: (what, error) => {
        if (what === 'refused') finish(new Error(`the API server refused the watch of ${w.path}`));
        else if (what === 'list' && refused(error)) finish(error);
      },
    });
    if (signal?.aborted) finish();
    signal?.addEventListener('abort', () => finish(), { once: true });
  });
  return { done, over };
}

/** The first object added or changed that `matches`, from the first list on; undefined when `signal` aborts first. */
export async function firstInformed<T>(
  kube: Kube,
  at: Pick<Informed, 'path' | 'query'>,
  matches: (object: T) => boolean,
  signal?: AbortSignal,
): Promise<T | undefined> {
  let found: T | undefined;
  const on = (change: WatchChange, object: unknown) => {
    if (found !== undefined || change === 'DELETED' || !matches(object as T)) return;
    found = object as T;
    w.done();
  };
  const w = informUntil(kube, { ...at, on }, signal);
  await w.over;
  return found;
}
