// The informer's transport over node:https, for the function, the CLI and the
// tooling: light, without @kubernetes/client-node
// (docs/adr/0002-light-kubernetes-client.md). Lists in pages of 500; watches
// with bookmarks, ended by the API server after five minutes. Its sockets and
// timers never keep the process alive.
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Connection } from './connection.ts';
import {
  inform,
  listEnd,
  type Informer,
  type Transport,
  type WatchCalls,
  type WatchChange,
  type WatchEnd,
} from './informer.ts';
import { restClient, url } from './rest.ts';
import { streamGet } from './stream-get.ts';

export type { WatchChange } from './informer.ts';

/** Feeds a watch's body in chunks; calls `onLine` with each whole JSON line. */
export function lineReader(onLine: (text: string) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
  };
}

/** How a watch ended, from its HTTP status and whether its body came whole. */
export function endOf(status: number, complete: boolean): WatchEnd {
  if (status === 401 || status === 403) return 'refused';
  if (status === 410) return 'gone';
  return status === 200 && complete ? 'ended' : 'failed';
}

/** The API server ends each watch after this; a socket silent for longer is dead. */
const WATCH_SECONDS = 300;
const PAGE = '500';

/** One watch request: each line to `calls.line`, its end once to `calls.end`. */
function openWatch(conn: Connection, target: URL, calls: WatchCalls): { stop(): void } {
  let settled = false;
  const settle = (end: WatchEnd) => {
    if (settled) return;
    settled = true;
    calls.end(end);
  };
  const take = (text: string) => {
    let line: { type?: string; object?: unknown };
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      return;
    }
    if (typeof line.type === 'string') calls.line(line.type, line.object);
  };
  const answered = (res: IncomingMessage) => {
    const status = res.statusCode ?? 0;
    res.on('close', () => settle(endOf(status, res.complete)));
    if (status !== 200) {
      res.resume();
      return;
    }
    calls.answered();
    res.setEncoding('utf8');
    res.on('data', lineReader(take));
  };
  const req = streamGet(conn, target, (WATCH_SECONDS + 30) * 1000, answered);
  req.on('error', () => settle('failed'));
  req.end();
  return {
    stop() {
      settled = true;
      req.destroy();
    },
  };
}

/** Lists and watches the collection at `path` (with `query`, such as a labelSelector) over node:https. */
export function httpsTransport(
  conn: Connection,
  path: string,
  query: Record<string, string> = {},
  rest = restClient(conn),
): Transport {
  return {
    list: (cont) => rest('GET', path, { query: { ...query, limit: PAGE, continue: cont } }),
    watch: (resourceVersion, calls) =>
      openWatch(
        conn,
        url(conn, path, {
          timeoutSeconds: String(WATCH_SECONDS),
          ...query,
          watch: 'true',
          allowWatchBookmarks: 'true',
          resourceVersion,
        }),
        calls,
      ),
  };
}

export interface KeptWatchOptions {
  conn: Connection;
  /** The collection's path, such as /apis/batch/v1/namespaces/NS/jobs. */
  path: string;
  query?: Record<string, string>;
  /** Each ADDED, MODIFIED or DELETED change, with its object: each listed one (`listed`), then each watched. */
  on: (change: WatchChange, object: unknown, listed: boolean) => void;
  /** After each list, the first and each after 410 Gone: every object listed. */
  listed?: ((items: readonly unknown[]) => void) | undefined;
  /** Told true each time the watch is answered after a list is in, false each time it ends. */
  opened?: ((open: boolean) => void) | undefined;
  log: Logger;
}

export type KeptWatch = Pick<Informer, 'stop'>;

/** The function's informer of one collection; a lost watch or list is logged once until it is back. */
export function keepWatching(opts: KeptWatchOptions): KeptWatch {
  const { path, log } = opts;
  let lost = false;
  return inform({
    transport: httpsTransport(opts.conn, path, opts.query),
    on: (change, object, listed) => opts.on(change, object, listed),
    listed: opts.listed,
    opened: (open) => {
      if (open) lost = false;
      opts.opened?.(open);
    },
    failed: (end, error) => {
      if (lost) return;
      lost = true;
      const how = end === 'list' ? listEnd(error) : end;
      log.warn({ path, end: how, err: error }, 'watch lost: listing or opening it again');
    },
  });
}
