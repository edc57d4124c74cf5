// A watch kept open as client-go's Reflector keeps it; the real
// ApiServerSource's adapter watches through one. The API server may end the
// watch: at its timeout, in an outage, or when it finds the watcher too slow.
// Then the watch is opened again from the last resourceVersion seen, bookmarks
// included, so the changes meanwhile come in order and nothing is told twice.
// That version may be too old for the API server: 410 Gone, when its watch
// cache moved on or it restarted. Only then does the watch start again from
// the current state, whose objects then come again as ADDED. With `list`, as a
// Reflector does, the current state is listed instead and the watch opened
// from the list's version, so the objects that exist then are not told at all.
import { Watch, type KubeConfig } from '@kubernetes/client-node';

export interface KeptWatch {
  /** Resolves once the first watch is open. */
  ready: Promise<void>;
  stop(): void;
  /** Times the watch was opened again from where it left off, and from the current state. */
  reopened(): { resumed: number; fromNow: number };
}

export interface KeptWatchOptions {
  kc: KubeConfig;
  path: string;
  query?: Record<string, string>;
  /** Each ADDED, MODIFIED or DELETED change (no bookmarks, no errors). */
  on: (phase: string, obj: unknown) => void;
  onError?: (error: unknown) => void;
  /** Lists the current state and gives its resourceVersion: when set, the watch starts there (a Reflector's list), not with ADDED events for what exists. */
  list?: () => Promise<string>;
}

type Versioned = { code?: number; metadata?: { resourceVersion?: string } };

/** Where to open the watch again after this line of it: its object's version; none (the current state) after a 410. */
export function versionAfter(since: string | undefined, phase: string, obj: Versioned): string | undefined {
  if (phase === 'ERROR') return obj.code === 410 ? undefined : since;
  return obj.metadata?.resourceVersion ?? since;
}

export function keptWatch({ kc, path, query = {}, on, onError, list }: KeptWatchOptions): KeptWatch {
  let stopped = false;
  let since: string | undefined;
  let controller: AbortController | undefined;
  const counts = { resumed: 0, fromNow: 0 };
  // Opening fails only before the request is made (an API server that does not answer ends the watch instead): tried again each second.
  const reopen = (afterMs: number) =>
    setTimeout(
      () =>
        void open().catch((e: unknown) => {
          onError?.(e);
          if (!stopped) reopen(1000);
        }),
      afterMs,
    );
  const open = async (): Promise<void> => {
    if (stopped) return;
    if (!since && list) since = await list();
    const version = since ? { resourceVersion: since } : {};
    controller = await new Watch(kc).watch(
      path,
      { ...query, allowWatchBookmarks: 'true', ...version },
      (phase, obj: Versioned) => {
        since = versionAfter(since, phase, obj);
        if (phase !== 'BOOKMARK' && phase !== 'ERROR') on(phase, obj);
      },
      () => {
        if (stopped) return;
        counts[since ? 'resumed' : 'fromNow']++;
        reopen(100);
      },
    );
    if (stopped) controller.abort();
  };
  return {
    ready: open(),
    stop: () => {
      stopped = true;
      controller?.abort();
    },
    reopened: () => ({ ...counts }),
  };
}
