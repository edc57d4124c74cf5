// The page's calls to its server: the event stream, the reads, and the
// actions with the per-start token from the page's meta element.
import {
  TOKEN_HEADER,
  TOKEN_META,
  type ActionAnswer,
  type Changes,
  type Snapshot,
  type SnapshotRest,
} from '../protocol.ts';
import type { PageStore } from './store.ts';

const token = (): string => document.querySelector<HTMLMetaElement>(`meta[name="${TOKEN_META}"]`)?.content ?? '';

/** Calls `fn` once the next frame is drawn (a task after the frame's callbacks); at the latest after 1 s. */
function afterFrame(fn: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 1000);
}

/** The event stream into the store; the browser reconnects by itself, and each reconnection sends a snapshot. */
export function connect(store: PageStore): EventSource {
  const source = new EventSource('/api/stream');
  // A snapshot's rest is read after the first screen is drawn; one of an older snapshot (before a reconnection) is dropped.
  let snapshots = 0;
  source.addEventListener('snapshot', (e) => {
    snapshots++;
    store.snapshot(JSON.parse((e as MessageEvent<string>).data) as Snapshot);
  });
  source.addEventListener('rest', (e) => {
    const { data } = e as MessageEvent<string>;
    const of = snapshots;
    afterFrame(() => of === snapshots && store.rest(JSON.parse(data) as SnapshotRest));
  });
  source.addEventListener('changes', (e) => store.apply(JSON.parse((e as MessageEvent<string>).data) as Changes));
  source.addEventListener('open', () => store.setConnected(true));
  source.addEventListener('error', () => store.setConnected(false));
  return source;
}

export class ApiError extends Error {}

export async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new ApiError(body.error ?? `${res.status}`);
  return body;
}

export async function act(action: 'cancel' | 'resume', namespace: string, name: string): Promise<ActionAnswer> {
  const res = await fetch(`/api/runs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${action}`, {
    method: 'POST',
    headers: { [TOKEN_HEADER]: token() },
  });
  const body = (await res.json()) as ActionAnswer & { error?: string };
  return body.error ? { state: 'error', message: body.error, status: res.status } : body;
}
