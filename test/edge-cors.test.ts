// No CORS, against the real function process: faas-js-runtime answers every
// call of the function and `OPTIONS /` with `access-control-allow-origin: *`,
// which would let any web page a browser shows start runs (and so Jobs).
// Cascade removes every `access-control-*` header (functions/cascade/runtime-overrides.ts), so a
// browser's preflight and its cross-origin calls get no permission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, type Harness } from './support/cascade-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(60_000), source: false });
});
afterAll(async () => {
  await h?.stop();
});

const ORIGIN = 'https://pages.example';

/** The reply's `access-control-*` headers, as `name: value` lines. */
function corsHeaders(res: Response): string[] {
  return [...res.headers.entries()]
    .filter(([name]) => name.startsWith('access-control-'))
    .map(([name, value]) => `${name}: ${value}`);
}

describe('a browser on another origin gets no CORS permission', () => {
  it('a preflight OPTIONS / is answered without access-control-* headers', async () => {
    const res = await fetch(`${h.url()}/`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(corsHeaders(res)).toEqual([]);
  });

  it('a run request with an Origin is served (200) without access-control-* headers', async () => {
    const res = await fetch(`${h.url()}/`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ turlinfo: 's3://in/x.tgz', iuid: 'cors0001' }),
    });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
  });

  it('a CloudEvent with an Origin: the same', async () => {
    const event = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/y.tgz', iuid: 'cors0002' });
    const res = await fetch(`${h.url()}/`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', ...event.headers },
      body: JSON.stringify(event.body),
    });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
  });

  it('a refused request (400), a wrong path (404) and the probes: the same', async () => {
    const replies = await Promise.all([
      fetch(`${h.url()}/`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: '[]',
      }),
      fetch(`${h.url()}/run`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: '{}',
      }),
      fetch(`${h.url()}/healthz`, { headers: { origin: ORIGIN } }),
      fetch(`${h.url()}/ready`, { headers: { origin: ORIGIN } }),
    ]);
    expect(replies.map((r) => r.status)).toEqual([400, 404, 200, 200]);
    expect(replies.flatMap(corsHeaders)).toEqual([]);
  });
});
