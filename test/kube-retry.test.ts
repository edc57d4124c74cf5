// The Store's calls against API servers that fail as kube-apiserver does when
// it or its etcd is down: a request held with no answer (etcd down: up to a
// minute before 504 or a reset), a connection cut at once (the API server
// stopping). Each attempt is cut at attemptTimeoutMs, no attempt starts past
// maxRetryTimeMs, and what is left is a transient error, which the function
// answers 503. Local HTTP servers stand in for the API server: the point is
// the client's bounds, which the real one cannot be made to show on demand.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { failureOutcome } from '../functions/cascade/handle.ts';
import { statusOf } from '../functions/cascade/reply.ts';
import { apiErrorKind } from '../shared/kube/errors.ts';
import { restClient } from '../shared/kube/rest.ts';
import { restStore } from '../shared/kube/rest-store.ts';
import { DEFAULT_RETRY } from '../shared/kube/retry.ts';

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
  restStore(restClient({ server: url, insecure: false, token: () => undefined }), 'ns', { ...DEFAULT_RETRY, minTimeoutMs: 10, maxTimeoutMs: 20, ...policy });

describe('Kubernetes API calls, bounded in time', () => {
  it('a request held with no answer is cut, not tried again past the time budget, and answered 503', async () => {
    const api = await apiServer(() => {});
    const error: unknown = await storeAt(api.url, { attemptTimeoutMs: 300, maxRetryTimeMs: 200 }).getRun('r').catch((e: unknown) => e);
    expect(String(error)).toMatch(/GET \/apis\/cascade\.cascade\.net\/v1alpha1\/namespaces\/ns\/cascaderuns\/r: timed out/);
    expect(apiErrorKind(error)).toBe('transient');
    expect(api.requests(), 'one attempt: it alone took longer than the budget').toBe(1);
    expect(statusOf(failureOutcome(error))).toBe(503);
  });

  it('a connection cut at once is tried again while retries and time are left, then answered 503', async () => {
    const api = await apiServer((req) => req.socket.destroy());
    const error: unknown = await storeAt(api.url, { retries: 4 }).getRun('r').catch((e: unknown) => e);
    expect(apiErrorKind(error)).toBe('transient');
    expect(api.requests()).toBe(5);
    expect(statusOf(failureOutcome(error))).toBe(503);
  });
});
