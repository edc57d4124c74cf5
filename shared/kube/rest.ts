// A small JSON client for the Kubernetes REST API over node:https, with
// keep-alive. Cascade's function makes a dozen kinds of calls; this answers
// them without @kubernetes/client-node, whose import alone costs 0.6-1.2 s of
// a cold start (docs/adr/0002-light-kubernetes-client.md). A refused call
// throws an ApiError whose `code` is the HTTP status, as client-node's does,
// so errors.ts classifies both alike.
import type { IncomingHttpHeaders } from 'node:http';
import type { Connection } from './connection.ts';
import { slots } from './slots.ts';

// The modules themselves, not their ES module namespaces: importing node:http
// as an ES module reads each of its exports, and its lazy WebSocket getters
// then load undici, about 40 ms of a cold command.
const { Agent: HttpAgent, request: httpRequest } = process.getBuiltinModule('node:http');
const { Agent: HttpsAgent, request: httpsRequest } = process.getBuiltinModule('node:https');
const { createSecureContext } = process.getBuiltinModule('node:tls');

/** Calls in flight to the API server at once (and sockets kept); more wait in slots.ts, not in the Agent. */
const MAX_IN_FLIGHT = 64;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: number;
  readonly body: string;
  /** The answer's headers, such as a 429's Retry-After. */
  headers: IncomingHttpHeaders = {};
  constructor(code: number, method: string, path: string, body: string) {
    super(`${method} ${path}: HTTP ${code}`);
    this.code = code;
    this.body = body;
  }
}

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  body?: unknown;
  timeoutMs?: number;
  /** The body as text (health endpoints), not JSON. */
  text?: boolean;
  /** A success's body is not wanted (a Job created or deleted, an Event): read off the socket, not parsed; resolves undefined. */
  discard?: boolean;
  /** Aborts the call, sent or still waiting for a slot: it rejects at once. */
  signal?: AbortSignal;
  /** The body's type, when not application/json (a PATCH's). */
  contentType?: string;
}

export type Rest = <T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  opts?: RequestOptions,
) => Promise<T>;

export function url(conn: Connection, path: string, query: RequestOptions['query']): URL {
  const u = new URL(conn.server + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, v);
  return u;
}

/** The Authorization header of the token now: one string while the token stays the same, not one per call. */
export function authorization(conn: Connection): () => string | undefined {
  let token: string | undefined;
  let header: string | undefined = conn.basic ? `Basic ${conn.basic}` : undefined;
  return () => {
    const now = conn.token();
    if (now !== token) {
      token = now;
      header = now ? `Bearer ${now}` : conn.basic ? `Basic ${conn.basic}` : undefined;
    }
    return header;
  };
}

/** The TLS options of a connection's agent: one secure context for every socket. */
export function tlsOptions(conn: Connection) {
  return {
    secureContext: createSecureContext({ ca: conn.ca, cert: conn.cert, key: conn.key }),
    rejectUnauthorized: !conn.insecure,
    ...(conn.servername ? { servername: conn.servername } : {}),
  };
}

export function restClient(conn: Connection): Rest {
  const tls = conn.server.startsWith('https:');
  // One TLS context for every connection: node:https makes one per connection
  // otherwise, and OpenSSL's SSL_CTX_new costs a cold process 8 ms of its main
  // thread for each (the second connection of a first run request among them).
  const agent = tls
    ? new HttpsAgent({
        keepAlive: true,
        maxSockets: MAX_IN_FLIGHT,
        ...tlsOptions(conn),
      })
    : new HttpAgent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  const send = tls ? httpsRequest : httpRequest;
  const auth = authorization(conn);
  const inFlight = slots(MAX_IN_FLIGHT);
  const call = <T>(method: string, path: string, opts: RequestOptions): Promise<T> =>
    inFlight(
      () =>
        new Promise<T>((resolve, reject) => {
          if (opts.signal?.aborted) return reject(aborted(method, path));
          const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
          const headers: Record<string, string> = { accept: 'application/json' };
          if (payload !== undefined)
            Object.assign(headers, {
              'content-type': opts.contentType ?? 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            });
          const authorizationHeader = auth();
          if (authorizationHeader) headers.authorization = authorizationHeader;
          const req = send(
            url(conn, path, opts.query),
            { method, agent, headers, timeout: opts.timeoutMs ?? 30_000, signal: opts.signal },
            (res) => {
              if (opts.discard && (res.statusCode ?? 0) < 400 && (res.statusCode ?? 0) > 0) {
                res.on('error', reject);
                res.on('end', () => resolve(undefined as T));
                res.resume();
                return;
              }
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('error', reject);
              res.on('end', () => {
                const text = Buffer.concat(chunks).toString('utf8');
                const status = res.statusCode ?? 0;
                if (status >= 400)
                  return reject(Object.assign(new ApiError(status, method, path, text), { headers: res.headers }));
                if (opts.text) return resolve(text as T);
                try {
                  resolve((text ? JSON.parse(text) : undefined) as T);
                } catch (error) {
                  reject(error);
                }
              });
            },
          );
          req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
          req.on('error', reject);
          req.end(payload);
        }),
    );
  return abortable(call);
}

function aborted(method: string, path: string): Error {
  return Object.assign(new Error(`${method} ${path}: aborted`), { name: 'AbortError' });
}

/** A call with a signal rejects at its abort, even while it waits for a slot; once it has its slot, it is not sent. */
function abortable(call: <T>(method: string, path: string, opts: RequestOptions) => Promise<T>): Rest {
  return <T>(method: string, path: string, opts: RequestOptions = {}) => {
    const { signal } = opts;
    if (!signal) return call<T>(method, path, opts);
    return new Promise<T>((resolve, reject) => {
      const abort = () => reject(aborted(method, path));
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      call<T>(method, path, opts)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', abort));
    });
  };
}
