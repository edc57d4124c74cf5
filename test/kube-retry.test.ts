// The Store's calls against API servers that fail as kube-apiserver does when
// it or its etcd is down, or while it starts: a request held with no answer
// (etcd down: up to a minute before 504 or a reset), a connection cut at once
// (the API server stopping), a refusal before its authorizer has synced (just
// started). Each attempt is cut at attemptTimeoutMs, no attempt starts past
// maxRetryTimeMs, a refusal counts as one only from a ready API server, and
// what is left is a transient error, which the function answers 503. Local
// HTTP servers stand in for the API server: the point is the client's rules,
// which the real one cannot be made to show on demand (the fault test,
// engine-faults.test.ts, meets them on the real one).
// A call given an abort signal (the Lease's release at SIGTERM) ends at the
// abort, whether it was sent or still waits for one of the client's 64 slots.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failureOutcome } from '../functions/cascade/handle.ts';
import { statusOf } from '../functions/cascade/reply.ts';
import { apiErrorKind } from '../shared/kube/errors.ts';
import { restClient } from '../shared/kube/rest.ts';
import { restStore } from '../shared/kube/rest-store.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { waitFor } from './support/kube.ts';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

async function apiServer(handle: Parameters<typeof createServer>[1]): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = createServer((req, res) => {
    requests++;
    handle?.(req, res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

const storeAt = (url: string, policy: Partial<typeof DEFAULT_RETRY>) =>
  restStore(restClient({ server: url, insecure: false, token: () => undefined }), 'ns', {
    ...DEFAULT_RETRY,
    minTimeoutMs: 10,
    maxTimeoutMs: 20,
    ...policy,
  });

describe('Kubernetes API calls while the API server or etcd is down, or the API server starting', () => {
  it('a request held with no answer is cut, not tried again past the time budget, and answered 503', async () => {
    const api = await apiServer(() => {});
    const error: unknown = await storeAt(api.url, { attemptTimeoutMs: 300, maxRetryTimeMs: 200 })
      .getRun('r')
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(
      /GET \/apis\/cascade\.cascade\.net\/v1alpha1\/namespaces\/ns\/cascaderuns\/r: timed out/,
    );
    expect(apiErrorKind(error)).toBe('transient');
    expect(api.requests(), 'one attempt: it alone took longer than the budget').toBe(1);
    expect(statusOf(failureOutcome(error))).toBe(503);
  });

  it('a refusal while the API server is not ready is tried again, and answered 503 if it does not get ready', async () => {
    const api = await apiServer((req, res) =>
      res
        .writeHead(req.url === '/readyz' ? 500 : 403)
        .end(req.url === '/readyz' ? '[-]informer-sync failed' : '{"message":"forbidden"}'),
    );
    const error: unknown = await storeAt(api.url, { retries: 2 })
      .getRun('r')
      .catch((e: unknown) => e);
    expect(String(error)).toBe('NotReadyYet: the API server is not ready yet, and refused: forbidden');
    expect(statusOf(failureOutcome(error))).toBe(503);
    expect(api.requests(), 'three attempts, each followed by a look at /readyz').toBe(6);
  });

  it('a refusal until the API server is ready: the call goes through once it is', async () => {
    let ready = false;
    const api = await apiServer((req, res) => {
      if (req.url !== '/readyz')
        return void res
          .writeHead(ready ? 200 : 403)
          .end(ready ? '{"metadata":{"name":"r"}}' : '{"message":"forbidden"}');
      res.writeHead(500).end('[-]informer-sync failed');
      ready = true; // ready from the next request on
    });
    expect(await storeAt(api.url, { retries: 2 }).getRun('r')).toEqual({ metadata: { name: 'r' } });
  });

  it('a refusal from a ready API server is final: one attempt, answered 500', async () => {
    const api = await apiServer((req, res) =>
      res
        .writeHead(req.url === '/readyz' ? 200 : 403)
        .end(req.url === '/readyz' ? 'ok' : '{"message":"cascaderuns is forbidden"}'),
    );
    const error: unknown = await storeAt(api.url, { retries: 2 })
      .getRun('r')
      .catch((e: unknown) => e);
    expect(apiErrorKind(error)).toBe('refused');
    expect(statusOf(failureOutcome(error))).toBe(500);
    expect(api.requests(), 'the call and one look at /readyz').toBe(2);
  });

  it('a connection cut at once is tried again while retries and time are left, then answered 503', async () => {
    const api = await apiServer((req) => req.socket.destroy());
    const error: unknown = await storeAt(api.url, { retries: 4 })
      .getRun('r')
      .catch((e: unknown) => e);
    expect(apiErrorKind(error)).toBe('transient');
    expect(api.requests()).toBe(5);
    expect(statusOf(failureOutcome(error))).toBe(503);
  });
});

describe('a call with an abort signal', () => {
  it('rejects at the abort, sent and held or waiting for a slot; the one that waited is never sent', async () => {
    const paths: string[] = [];
    const api = await apiServer((req) => paths.push(req.url ?? ''));
    const rest = restClient({ server: api.url, insecure: false, token: () => undefined });
    const sent = new AbortController();
    const waiting = new AbortController();
    const held = Array.from({ length: 63 }, () => rest('GET', '/held', { timeoutMs: 60_000 }).catch((e: unknown) => e));
    const first = rest('PUT', '/sent', { body: {}, signal: sent.signal }).catch((e: unknown) => e);
    await waitFor(() => api.requests() === 64, { message: 'every slot taken' });
    const second = rest('PUT', '/waiting', { body: {}, signal: waiting.signal }).catch((e: unknown) => e);
    waiting.abort();
    expect(String(await second)).toBe('AbortError: PUT /waiting: aborted');
    sent.abort();
    expect(String(await first)).toMatch(/abort/i);
    // A call made after the aborted one takes the slot freed: the aborted one had its turn first, and was not sent.
    const after = rest('GET', '/after', { timeoutMs: 60_000 }).catch((e: unknown) => e);
    await waitFor(() => paths.includes('/after'), { message: 'the call after it sent' });
    expect(paths.filter((p) => p !== '/held')).toEqual(['/sent', '/after']);
    server!.closeAllConnections();
    await Promise.all([...held, after]);
  });
});
