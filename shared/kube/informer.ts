// An informer, as client-go's Reflector keeps one: list the collection, then
// watch it from the list's resourceVersion, bookmarks included. A watch the
// API server ends is opened again from the last version seen, so the changes
// meanwhile come in order and nothing is told twice. After 410 Gone the
// collection is listed again, and only the difference is told: what changed
// as ADDED or MODIFIED, what vanished as DELETED with the last copy known of
// it. `synced` is told once, after the first list is in; `listed` after every
// list, with every object in it, as a controller's first sync acts on what it
// lists. A transport lists and watches: node:https (watch-stream.ts) for
// every informer, or a test's own.

export type WatchChange = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Meta {
  name?: string | undefined;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  labels?: Record<string, string> | undefined;
}

/** What the informer reads of an object. */
export interface Versioned {
  apiVersion?: string;
  kind?: string;
  metadata?: Meta;
}

export interface ListPage {
  items: unknown[];
  metadata?: { resourceVersion?: string | undefined; continue?: string | undefined };
}

/** How a watch ended: the API server closed it, 410 Gone, it failed, or it was refused (401, 403). */
export type WatchEnd = 'ended' | 'gone' | 'failed' | 'refused';

export interface WatchCalls {
  /** The API server took the watch (HTTP 200). */
  answered(): void;
  /** Each line of the watch: its type and object. */
  line(type: string, object: unknown): void;
  /** Once, when the watch is over. */
  end(how: WatchEnd): void;
}

export interface Transport {
  /** One page of the collection; throws an error with `code` (the HTTP status) when refused. */
  list(cont: string | undefined): Promise<ListPage>;
  /** Opens a watch from `resourceVersion`. */
  watch(resourceVersion: string, calls: WatchCalls): { stop(): void };
}

export interface InformerOptions {
  transport: Transport;
  /** Each change in order. `listed`: it comes from a list (the first, or one after 410 Gone), not from the watch. */
  on: (change: WatchChange, object: unknown, listed: boolean) => void;
  /** Once, after the first list is in. */
  synced?: () => void;
  /** After each list (the first, and each after 410 Gone), once its changes are told: every object it holds. */
  listed?: ((items: readonly unknown[]) => void) | undefined;
  /** True each time the watch is answered after a list is in; false each time it ends. */
  opened?: (open: boolean) => void;
  /** A list or a watch failed; it is tried again after a pause. */
  failed?: ((what: 'list' | WatchEnd, error?: unknown) => void) | undefined;
  /** Keep each object whole, not its metadata alone: a deletion found by a list is then told with the last copy seen. */
  whole?: boolean | undefined;
}

export interface Informer {
  /** Resolves once the first list is in. */
  synced: Promise<void>;
  /** Lists made: 1 after the start, one more after each 410 Gone. */
  lists(): number;
  stop(): void;
}

/** The copy kept of each object: enough to tell its deletion. */
type Known = Map<string, Versioned>;

const keyOf = (o: Versioned) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

function stub(o: Versioned): Versioned {
  const { name, namespace, uid, resourceVersion, labels } = o.metadata ?? {};
  const kept: Versioned = { metadata: { name, namespace, uid, resourceVersion, labels } };
  if (o.apiVersion) kept.apiVersion = o.apiVersion;
  if (o.kind) kept.kind = o.kind;
  return kept;
}

/**
 * What a fresh list tells against what was known: ADDED for what is new,
 * MODIFIED for what has another resourceVersion, DELETED (the last copy known)
 * for what vanished. An object of the same name with another uid was deleted
 * and made again: DELETED, then ADDED. Pure.
 */
export function relisted(
  known: ReadonlyMap<string, Versioned>,
  items: readonly Versioned[],
): [WatchChange, Versioned][] {
  const changes: [WatchChange, Versioned][] = [];
  const listed = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    listed.add(key);
    const was = known.get(key);
    if (!was) changes.push(['ADDED', item]);
    else if (was.metadata?.uid !== item.metadata?.uid) changes.push(['DELETED', was], ['ADDED', item]);
    else if (was.metadata?.resourceVersion !== item.metadata?.resourceVersion) changes.push(['MODIFIED', item]);
  }
  for (const [key, was] of known) if (!listed.has(key)) changes.push(['DELETED', was]);
  return changes;
}

/** Where to open the watch again after this line: its object's version; undefined after a 410 (list again). */
export function resumeFrom(since: string | undefined, type: string, object: unknown): string | undefined {
  const o = object as { code?: number; metadata?: { resourceVersion?: string } } | undefined;
  if (type === 'ERROR') return o?.code === 410 ? undefined : since;
  return o?.metadata?.resourceVersion ?? since;
}

/** The pause before opening again: short after a watch the API server ended, longer after each failure in a row, a minute after a refusal. */
export function pauseAfter(end: WatchEnd, failuresInRow: number): number {
  if (end === 'ended' || end === 'gone') return 100;
  if (end === 'refused') return 60_000;
  return Math.min(30_000, 500 * 2 ** Math.min(failuresInRow - 1, 6));
}

/** How a list's error ends the attempt: refused (401, 403), gone (410: its continue token expired) or failed. */
export function listEnd(error: unknown): WatchEnd {
  const code =
    (error as { code?: unknown; statusCode?: unknown } | undefined)?.code ??
    (error as { statusCode?: unknown })?.statusCode;
  if (code === 401 || code === 403) return 'refused';
  return code === 410 ? 'gone' : 'failed';
}

const CHANGES: readonly string[] = ['ADDED', 'MODIFIED', 'DELETED'];

/** Every page of the collection, and the version of the first page's snapshot. */
async function listAll(transport: Transport, stopped: () => boolean): Promise<{ items: Versioned[]; version: string }> {
  const items: Versioned[] = [];
  let cont: string | undefined;
  let version = '';
  do {
    const page = await transport.list(cont);
    items.push(...(page.items as Versioned[]));
    cont = page.metadata?.continue || undefined;
    version = page.metadata?.resourceVersion ?? version;
  } while (cont && !stopped());
  return { items, version };
}

/** What an informer holds between its lists and watches. */
interface State {
  opts: InformerOptions;
  known: Known;
  /** Where the next watch starts; undefined: list first. */
  since: string | undefined;
  stopped: boolean;
  failures: number;
  lists: number;
  current: { stop(): void } | undefined;
  timer: NodeJS.Timeout | undefined;
  markSynced: () => void;
}

const kept = (st: State, o: Versioned) => (st.opts.whole ? o : stub(o));

function later(st: State, end: WatchEnd, next: () => void): void {
  if (st.stopped) return;
  st.failures = end === 'ended' || end === 'gone' ? 0 : st.failures + 1;
  st.timer = setTimeout(next, pauseAfter(end, st.failures));
  st.timer.unref();
}

/** A list is in: its difference to what was known is told, and the watch starts from its version. */
function applyList(st: State, items: readonly Versioned[], version: string): void {
  const changes = relisted(st.known, items);
  st.known = new Map(items.map((o) => [keyOf(o), kept(st, o)]));
  st.since = version;
  st.lists++;
  for (const [change, object] of changes) st.opts.on(change, object, true);
  if (st.lists === 1) {
    st.opts.synced?.();
    st.markSynced();
  }
  st.opts.listed?.(items);
}

/** One line of the watch. */
function take(st: State, type: string, object: unknown): void {
  st.since = resumeFrom(st.since, type, object);
  if (!CHANGES.includes(type)) return;
  const o = object as Versioned;
  if (type === 'DELETED') st.known.delete(keyOf(o));
  else st.known.set(keyOf(o), kept(st, o));
  st.opts.on(type as WatchChange, object, false);
}

function watch(st: State): void {
  if (st.stopped) return;
  if (st.since === undefined) return relist(st);
  let over = false;
  st.current = st.opts.transport.watch(st.since, {
    answered: () => {
      st.failures = 0;
      st.opts.opened?.(true);
    },
    line: (type, object) => {
      if (!over) take(st, type, object);
    },
    end: (how) => {
      if (over) return;
      over = true;
      st.current = undefined;
      st.opts.opened?.(false);
      const end = st.since === undefined ? 'gone' : how;
      if (end === 'gone') st.since = undefined;
      if (end !== 'ended') st.opts.failed?.(end);
      later(st, end, () => watch(st));
    },
  });
}

function relist(st: State): void {
  listAll(st.opts.transport, () => st.stopped).then(
    ({ items, version }) => {
      if (st.stopped) return;
      applyList(st, items, version);
      watch(st);
    },
    (error: unknown) => {
      const end = listEnd(error);
      st.opts.failed?.('list', error);
      later(st, end === 'gone' ? 'failed' : end, () => relist(st));
    },
  );
}

export function inform(opts: InformerOptions): Informer {
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((r) => (markSynced = r));
  const st: State = {
    opts,
    known: new Map(),
    since: undefined,
    stopped: false,
    failures: 0,
    lists: 0,
    current: undefined,
    timer: undefined,
    markSynced,
  };
  relist(st);
  return {
    synced,
    lists: () => st.lists,
    stop() {
      st.stopped = true;
      clearTimeout(st.timer);
      st.current?.stop();
      st.current = undefined;
    },
  };
}
