// The opt-in caller token (CASCADE_AUTH_TOKEN), against the real function
// process: a call of the function without `Authorization: Bearer <token>`
// is answered 401 (with WWW-Authenticate) and creates nothing; with it, the
// call is served as usual; the probes need no token. Without the variable
// (every other test), callers need no token, as the Go controller's.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, replyBody, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig } from './support/kube.ts';

const TOKEN = 'c0ffee5e11a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1';
const run = (iuid: string) => JSON.stringify({ turlinfo: 's3://in/x.tgz', iuid });

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(60_000), source: false, env: { CASCADE_AUTH_TOKEN: TOKEN } });
});
afterAll(async () => {
  await h?.stop();
});

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(`${h.url()}${path}`, {
    method: init.method ?? 'POST',
    headers: init.headers,
    body: init.body,
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: replyBody(await res.text()) };
}

async function everything(): Promise<string[]> {
  const runs = (await h.listRuns()).map((r) => `run/${r.metadata.name}`);
  const jobs = (await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns })).items.map(
    (j) => `job/${j.metadata?.name}`,
  );
  return [...runs, ...jobs].sort();
}

describe('with CASCADE_AUTH_TOKEN set', () => {
  it.each([
    ['no Authorization header', {}],
    ['another token', { authorization: `Bearer ${TOKEN.replace('c0ffee', 'dec0de')}` }],
    ['the token without its scheme', { authorization: TOKEN }],
    ['the token as Basic credentials', { authorization: `Basic ${TOKEN}` }],
  ])('refuses a run request with %s: 401, nothing created', async (_what, headers) => {
    const reply = await call('/', {
      headers: { 'content-type': 'application/json', ...headers },
      body: run('deny0001'),
    });
    expect(reply).toEqual({
      status: 401,
      challenge: 'Bearer realm="cascade"',
      body: { error: 'no valid caller token: send Authorization: Bearer <the token of CASCADE_AUTH_TOKEN>' },
    });
    expect(await everything()).toEqual([]);
  });

  it('refuses a CloudEvent without the token as well, and an OPTIONS / preflight', async () => {
    const event = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'deny0002' });
    const ce = await call('/', {
      headers: { 'content-type': 'application/json', ...event.headers },
      body: JSON.stringify(event.body),
    });
    const preflight = await call('/', {
      method: 'OPTIONS',
      headers: { origin: 'https://pages.example', 'access-control-request-method': 'POST' },
    });
    expect([ce.status, preflight.status]).toEqual([401, 401]);
    expect(await everything()).toEqual([]);
  });

  it('serves a run request and a CloudEvent that carry the token', async () => {
    const authorization = `Bearer ${TOKEN}`;
    const plain = await call('/', {
      headers: { 'content-type': 'application/json', authorization },
      body: run('allow001'),
    });
    const event = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/y.tgz', iuid: 'allow002' });
    const ce = await call('/', {
      headers: { 'content-type': 'application/json', authorization, ...event.headers },
      body: JSON.stringify(event.body),
    });
    expect([plain.status, ce.status]).toEqual([200, 200]);
    expect((await h.listRuns()).map((r) => r.spec.pid).sort()).toEqual(['allow001', 'allow002']);
  });

  it('keeps the probes open (the kubelet sends no token)', async () => {
    expect((await call('/healthz', { method: 'GET' })).status).toBe(200);
    expect((await call('/ready', { method: 'GET' })).status).toBe(200);
  });
});
