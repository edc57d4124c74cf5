// A watch of the API server kept open over node:https, for the function:
// light, without @kubernetes/client-node (docs/adr/0002-light-kubernetes-client.md).
// When the API server ends the watch, at its timeout or in an outage, it is
// opened again from the last resourceVersion seen, bookmarks included. After
// a 410 Gone it starts again from the current state, whose objects then come
// again as ADDED. A refusal, such as RBAC without `watch`, is logged and tried
// again each minute. Its socket and timers never keep the process alive.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { Connection } from './connection.ts';
import { authorization, url } from './rest.ts';

export type WatchChange = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One line of a watch's body (a watch event). */
export interface WatchLine {
  type: string;
  object?: { code?: number; metadata?: { resourceVersion?: string } };
}

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

/** Where to open the watch again after this line: its object's version; the current state after a 410. */
export function resumeFrom(since: string | undefined, line: WatchLine): string | undefined {
  if (line.type === 'ERROR') return line.object?.code === 410 ? undefined : since;
  return line.object?.metadata?.resourceVersion ?? since;
}

export type WatchEnd = 'ended' | 'failed' | 'refused';

/** The pause before opening again: short after a watch the API server ended, longer after each failure in a row, a minute after a refusal. */
export function pauseAfter(end: WatchEnd, failuresInRow: number): number {
  if (end === 'ended') return 100;
  if (end === 'refused') return 60_000;
  return Math.min(30_000, 500 * 2 ** Math.min(failuresInRow - 1, 6));
}

export interface KeptWatchOptions {
  conn: Connection;
  /** The collection's path, such as /apis/batch/v1/namespaces/NS/jobs. */
  path: string;
  query?: Record<string, string>;
  /** Each ADDED, MODIFIED or DELETED change, with its object. */
  on: (change: WatchChange, object: unknown) => void;
  /** Told true each time the API server takes the watch, false each time it ends. */
  opened?: ((open: boolean) => void) | undefined;
  log: Logger;
}

export interface KeptWatch {
  stop(): void;
}

/** How a watch ended, from its HTTP status and whether its body came whole. */
export function endOf(status: number, complete: boolean): WatchEnd {
  if (status === 401 || status === 403) return 'refused';
  return status === 200 && complete ? 'ended' : 'failed';
}

const agents = new WeakMap<Connection, HttpAgent>();
const bearers = new WeakMap<Connection, () => string | undefined>();

/** One agent per connection, with one TLS context: a watch opened again does not build another. */
function agentFor(conn: Connection): HttpAgent {
  let agent = agents.get(conn);
  if (agent) return agent;
  agent = conn.server.startsWith('https:')
    ? new HttpsAgent({
        secureContext: createSecureContext({ ca: conn.ca, cert: conn.cert, key: conn.key }),
        rejectUnauthorized: !conn.insecure,
      })
    : new HttpAgent();
  agents.set(conn, agent);
  return agent;
}

function bearerOf(conn: Connection): () => string | undefined {
  let bearer = bearers.get(conn);
  if (!bearer) bearers.set(conn, (bearer = authorization(conn)));
  return bearer;
}

const CHANGES: readonly string[] = ['ADDED', 'MODIFIED', 'DELETED'];
/** The API server ends each watch after this, unless the query says otherwise; a socket silent for longer is dead. */
const WATCH_SECONDS = 300;

/** The HTTP side of one watch request: its answer to `answered`, its failure to `settle`. */
function request(
  conn: Connection,
  target: URL,
  answered: (res: IncomingMessage) => void,
  settle: (end: WatchEnd) => void,
): ClientRequest {
  const headers: Record<string, string> = { accept: 'application/json' };
  const bearer = bearerOf(conn)();
  if (bearer) headers.authorization = bearer;
  const send = conn.server.startsWith('https:') ? httpsRequest : httpRequest;
  const req = send(
    target,
    { method: 'GET', agent: agentFor(conn), headers, timeout: (WATCH_SECONDS + 30) * 1000 },
    answered,
  );
  req.on('socket', (socket) => socket.unref());
  req.on('timeout', () => req.destroy(new Error('watch silent')));
  req.on('error', () => settle('failed'));
  req.end();
  return req;
}

export function keepWatching(opts: KeptWatchOptions): KeptWatch {
  const { conn, path, log } = opts;
  let since: string | undefined;
  let stopped = false;
  let failures = 0;
  let current: ClientRequest | undefined;
  let timer: NodeJS.Timeout | undefined;

  const again = (end: WatchEnd) => {
    current = undefined;
    opts.opened?.(false);
    if (stopped) return;
    failures = end === 'ended' ? 0 : failures + 1;
    if (end !== 'ended' && failures === 1) log.warn({ path, end }, 'watch lost: opening it again');
    timer = setTimeout(open, pauseAfter(end, failures));
    timer.unref();
  };

  const take = (text: string) => {
    let line: WatchLine;
    try {
      line = JSON.parse(text) as WatchLine;
    } catch {
      return;
    }
    since = resumeFrom(since, line);
    if (CHANGES.includes(line.type)) opts.on(line.type as WatchChange, line.object);
  };

  const answered = (res: IncomingMessage, settle: (end: WatchEnd) => void) => {
    const status = res.statusCode ?? 0;
    res.on('close', () => settle(endOf(status, res.complete)));
    if (status !== 200) {
      if (status === 410) since = undefined;
      res.resume();
      return;
    }
    failures = 0;
    opts.opened?.(true);
    res.setEncoding('utf8');
    res.on('data', lineReader(take));
  };

  function open(): void {
    if (stopped) return;
    const query = { timeoutSeconds: String(WATCH_SECONDS), ...opts.query, watch: 'true', allowWatchBookmarks: 'true' };
    let settled = false;
    const settle = (end: WatchEnd) => {
      if (settled) return;
      settled = true;
      again(end);
    };
    const target = url(conn, path, { ...query, resourceVersion: since });
    current = request(conn, target, (res) => answered(res, settle), settle);
  }

  open();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      current?.destroy();
    },
  };
}
