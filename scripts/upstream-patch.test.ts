// docs/upstream/faas-js-runtime-4.0.1.patch applies to the installed
// faas-js-runtime and does what docs/upstream/faas-js-runtime.md says: the
// runtime calls `configure` with its Fastify instance before its routes, a
// refused request stops no timer it never started, a malformed CloudEvent
// does not reach the function, OPTIONS answers the origins `cors` allows, and
// the default probes' overload protection starts no timer until one is served.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { freePort } from '../local/stand-ins/function-process.ts';

interface FastifyLike {
  addHook(name: 'onRequest', hook: (req: { url: string }, reply: unknown, done: () => void) => void): unknown;
  setNotFoundHandler(
    handler: (req: unknown, reply: { code(n: number): { send(b: unknown): unknown } }) => void,
  ): unknown;
  hasRoute(route: { method: string; url: string }): boolean;
}
interface Runtime {
  start(func: Record<string, unknown>, options: Record<string, unknown>): Promise<Server>;
}

const PATCH = join(repoRoot, 'docs', 'upstream', 'faas-js-runtime-4.0.1.patch');
// Inside node_modules, so that the copy finds the runtime's own dependencies as the original does.
const parent = join(repoRoot, 'node_modules', '.cache');

let dir: string;
let server: Server;
let url: string;
const seen = { configured: 0, routesAtConfigure: true, requests: [] as string[], calls: 0 };

beforeAll(async () => {
  mkdirSync(parent, { recursive: true });
  dir = mkdtempSync(join(parent, 'faas-js-runtime-patched-'));
  cpSync(join(repoRoot, 'node_modules', 'faas-js-runtime'), dir, { recursive: true });
  execFileSync('patch', ['-p1', '--forward', '--quiet', '-i', PATCH], { cwd: dir });
  const runtime = createRequire(join(dir, 'index.js'))(dir) as Runtime;
  server = await runtime.start(
    {
      handle: () => {
        seen.calls++;
        return { ok: true };
      },
      cors: () => ['https://allowed.example'],
      configure(fastify: FastifyLike) {
        seen.configured++;
        seen.routesAtConfigure = fastify.hasRoute({ method: 'POST', url: '/' });
        fastify.addHook('onRequest', (req, _reply, done) => {
          seen.requests.push(req.url);
          done();
        });
        fastify.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'no such route' }));
      },
    },
    // the runtime takes port 0 for its default, 8080
    { port: await freePort(), logLevel: 'silent' },
  );
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the faas-js-runtime patch of docs/upstream/', () => {
  it('calls configure once, with the Fastify instance, before the runtime registers its routes', async () => {
    expect(seen.configured).toBe(1);
    expect(seen.routesAtConfigure).toBe(false);
    expect((await fetch(`${url}/`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(seen.requests).toContain('/');
  });

  it("answers an unknown route with the function's not-found handler", async () => {
    const res = await fetch(`${url}/run`, { method: 'POST' });
    expect([res.status, await res.json()]).toEqual([404, { error: 'no such route' }]);
  });

  it('refuses a CloudEvent that does not validate without calling the function', async () => {
    const before = seen.calls;
    const res = await fetch(`${url}/`, {
      method: 'POST',
      // no ce-type: the SDK's validate() throws
      headers: { 'content-type': 'application/json', 'ce-specversion': '1.0', 'ce-id': '1', 'ce-source': '/s' },
      body: '{}',
    });
    expect(res.status, await res.text()).toBeGreaterThanOrEqual(400);
    expect(seen.calls).toBe(before);
  });

  it("makes the default probes' overload protection, whose sampler keeps a timer, only when a default probe is served", async () => {
    // In a child process: each call of overload-protection's factory is printed.
    const madeOnLoad = (file: string) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `const M = require('node:module');
           const load = M.prototype.require;
           M.prototype.require = function (id) {
             const real = load.apply(this, arguments);
             return id === 'overload-protection' ? (...a) => (process.stdout.write('made '), real(...a)) : real;
           };
           require(${JSON.stringify(file)});`,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(madeOnLoad(join(repoRoot, 'node_modules', 'faas-js-runtime', 'lib', 'health-check.js'))).toBe('made');
    expect(madeOnLoad(join(dir, 'lib', 'health-check.js'))).toBe('');
    const probe = await fetch(`${url}/health/readiness`);
    expect([probe.status, await probe.text()]).toEqual([200, 'OK']);
  });

  it('answers OPTIONS with the origin cors() allows, and no origin for another', async () => {
    const allowed = await fetch(`${url}/`, { method: 'OPTIONS', headers: { origin: 'https://allowed.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://allowed.example');
    const other = await fetch(`${url}/`, { method: 'OPTIONS', headers: { origin: 'https://other.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
