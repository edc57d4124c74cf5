// Every creation and deletion of the keys under a prefix, read from etcd's own
// history (a watch from a revision over its JSON gateway on the client port),
// not through the API server. A record of the Jobs created that holds across
// an API server restart, when a watch through the API server may have lost
// that history (410 Gone), and across an etcd restart (watched again from the
// next revision). A key is created by a put whose version is 1: etcd counts a
// key's versions from 1 again after it is deleted.

interface KeyValue {
  key: string;
  mod_revision?: string;
  version?: string;
}

interface WatchMessage {
  result?: {
    events?: Array<{ type?: 'PUT' | 'DELETE'; kv: KeyValue }>;
    canceled?: boolean;
    compact_revision?: string;
    cancel_reason?: string;
  };
  error?: { message?: string };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string) => Buffer.from(s, 'base64').toString('utf8');
/** The end of the range of keys that start with `prefix`. */
const prefixEnd = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

async function currentRevision(etcd: string): Promise<number> {
  const res = await fetch(`${etcd}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64('\0'), count_only: true }),
  });
  const body = (await res.json()) as { header: { revision: string } };
  return Number(body.header.revision);
}

export interface EtcdHistory {
  /** Times each key (without the prefix) was created. */
  created: Map<string, number>;
  /** Keys (without the prefix) that exist now, as far as the history read so far says. */
  alive: Set<string>;
  /** Set when etcd no longer had the history to read (compacted): the record is then incomplete. */
  lost(): string | undefined;
  stop(): void;
}

/** Reads the history of `prefix` from now on, from the etcd at `etcd` (http://host:port). */
export async function etcdHistory(etcd: string, prefix: string): Promise<EtcdHistory> {
  const created = new Map<string, number>();
  const alive = new Set<string>();
  const state = {
    next: (await currentRevision(etcd)) + 1,
    stopped: false,
    lost: undefined as string | undefined,
    abort: new AbortController(),
  };
  const apply = (message: WatchMessage) => {
    const result = message.result;
    if (result?.canceled)
      state.lost = `watch canceled at revision ${state.next}: ${result.cancel_reason ?? `compacted to ${result.compact_revision}`}`;
    for (const e of result?.events ?? []) {
      const key = text(e.kv.key).slice(prefix.length);
      state.next = Math.max(state.next, Number(e.kv.mod_revision) + 1);
      if (e.type === 'DELETE') alive.delete(key);
      else if (e.kv.version === '1') {
        created.set(key, (created.get(key) ?? 0) + 1);
        alive.add(key);
      }
    }
  };
  const watchOnce = async () => {
    const body = JSON.stringify({
      create_request: { key: b64(prefix), range_end: b64(prefixEnd(prefix)), start_revision: String(state.next) },
    });
    const res = await fetch(`${etcd}/v3/watch`, { method: 'POST', body, signal: state.abort.signal });
    let buffered = '';
    for await (const chunk of res.body ?? []) {
      buffered += Buffer.from(chunk as Uint8Array).toString('utf8');
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        apply(JSON.parse(buffered.slice(0, nl)) as WatchMessage);
        buffered = buffered.slice(nl + 1);
      }
    }
  };
  // Watched again from the next revision whenever the stream ends (etcd stopped, say), until stopped.
  void (async () => {
    while (!state.stopped && !state.lost) {
      await watchOnce().catch(() => {});
      if (!state.stopped) await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    created,
    alive,
    lost: () => state.lost,
    stop: () => {
      state.stopped = true;
      state.abort.abort();
    },
  };
}
