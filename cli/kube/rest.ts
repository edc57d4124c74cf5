// A small HTTP client for the API server's reads, on node:http and node:https.
// Its errors have the shape client-node's have: `code` (the HTTP status),
// `body` (the Status as text) and `headers`, so describeError and
// retryTooManyRequests read both alike. A socket error keeps its own `code`.
import type { IncomingMessage } from 'node:http';

// The modules themselves, not their ES module namespaces: importing node:http
// as an ES module reads each of its exports, and its lazy WebSocket getters
// then load undici, about 40 ms before any request.
const { request: httpRequest } = process.getBuiltinModule('node:http');
const { request: httpsRequest } = process.getBuiltinModule('node:https');
import type { Access } from './kubeconfig.ts';

export type Query = Record<string, string | number | boolean | undefined>;

/** The URL of `path` on the API server, with the query's set values. */
export function apiUrl(access: Access, path: string, query: Query = {}): URL {
  const url = new URL(access.server + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url;
}

function headers(access: Access): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json', 'user-agent': 'kubectl-cascade' };
  if (access.token) h.authorization = `Bearer ${access.token}`;
  else if (access.basic) h.authorization = `Basic ${access.basic}`;
  return h;
}

/** Sends a request (a GET unless `send` says) and resolves with the response once its headers arrive; a status of 400 or more rejects. */
export function open(
  access: Access,
  url: URL,
  signal?: AbortSignal,
  call: { method: string; body?: unknown } = { method: 'GET' },
): Promise<IncomingMessage> {
  const tls = url.protocol === 'https:';
  const send = tls ? httpsRequest : httpRequest;
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const options = {
    method: call.method,
    headers:
      body === undefined
        ? headers(access)
        : {
            ...headers(access),
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
    signal,
    ...(tls
      ? {
          ca: access.ca,
          cert: access.cert,
          key: access.key,
          rejectUnauthorized: !access.insecure,
          servername: access.servername,
        }
      : {}),
  };
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 400) return resolve(res);
      readAll(res).then(
        (body) =>
          reject(Object.assign(new Error(`HTTP ${status}: ${body}`), { code: status, body, headers: res.headers })),
        reject,
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Sends a DELETE of `path` with these DeleteOptions; resolves with the JSON answered. */
export async function deleteJson<T>(access: Access, path: string, query: Query, body: object): Promise<T> {
  return JSON.parse(
    await readAll(await open(access, apiUrl(access, path, query), undefined, { method: 'DELETE', body })),
  ) as T;
}

/** GETs `path` and parses the JSON it answers. */
export async function getJson<T>(access: Access, path: string, query?: Query): Promise<T> {
  return JSON.parse(await readAll(await open(access, apiUrl(access, path, query)))) as T;
}

/**
 * Streams a watch of `path`: each event line goes to `onEvent` (ERROR and
 * BOOKMARK events are kept back). Resolves when the API server ends the
 * stream or `signal` aborts, with the last resourceVersion seen, or
 * undefined after a 410 Gone, which asks for a fresh list.
 */
export async function watchJson<T extends { metadata: { resourceVersion?: string } }>(
  access: Access,
  path: string,
  query: Query,
  { onEvent, signal }: { onEvent: (type: string, obj: T) => void; signal: AbortSignal },
): Promise<string | undefined> {
  let last = query.resourceVersion === undefined ? undefined : String(query.resourceVersion);
  let res: IncomingMessage;
  try {
    res = await open(access, apiUrl(access, path, { ...query, watch: 1 }), signal);
  } catch (error) {
    if (signal.aborted) return last;
    throw error;
  }
  let buffered = '';
  const take = (line: string) => {
    if (line.trim() === '') return;
    const event = JSON.parse(line) as { type: string; object: T & { code?: number } };
    if (event.type === 'ERROR') {
      if (event.object.code === 410) last = undefined;
      return;
    }
    last = event.object.metadata.resourceVersion ?? last;
    if (event.type !== 'BOOKMARK') onEvent(event.type, event.object);
  };
  return new Promise((resolve, reject) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop()!;
      lines.forEach(take);
    });
    res.on('end', () => resolve(last));
    res.on('error', (error) => (signal.aborted ? resolve(last) : reject(error)));
    res.on('close', () => resolve(last));
  });
}
