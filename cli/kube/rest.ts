// A small HTTP client for the API server's reads, on node:http and node:https.
// Its errors have the shape client-node's have: `code` (the HTTP status),
// `body` (the Status as text) and `headers`, so describeError and
// retryTooManyRequests read both alike. A socket error keeps its own `code`.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
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

/** Sends a GET and resolves with the response once its headers arrive; a status of 400 or more rejects. */
export function open(access: Access, url: URL, signal?: AbortSignal): Promise<IncomingMessage> {
  const tls = url.protocol === 'https:';
  const send = tls ? httpsRequest : httpRequest;
  const options = {
    method: 'GET',
    headers: headers(access),
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
    req.end();
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

/** GETs `path` and parses the JSON it answers. */
export async function getJson<T>(access: Access, path: string, query?: Query): Promise<T> {
  return JSON.parse(await readAll(await open(access, apiUrl(access, path, query)))) as T;
}
