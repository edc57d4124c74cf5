// Each override of runtime-overrides.ts, on a server built from
// faas-js-runtime's own modules and fastify 4 as the runtime builds its own,
// driven in memory with fastify's inject() (no socket).
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { isInput, type Input } from './edge.ts';
import {
  installOverrides,
  isSdkValidationError,
  overrideRuntime,
  readyProblem,
  shapeProblem,
  type RuntimeServer,
} from './runtime-overrides.ts';

const runtimeRequire = createRequire(createRequire(import.meta.url).resolve('faas-js-runtime'));
const fastify = runtimeRequire('fastify') as (options: object) => RuntimeServer & Injectable;
const Context = runtimeRequire('./lib/context.js') as new (request: unknown) => object;
const eventHandler = runtimeRequire('./lib/event-handler.js') as (server: unknown) => void;
const requestHandler = runtimeRequire('./lib/request-handler.js') as (server: unknown, opts: object) => void;
const RuntimeValidationError = runtimeRequire('cloudevents').ValidationError as new (
  message: string,
  errors?: unknown[],
) => Error;

interface Injected {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json(): Record<string, unknown>;
}
interface Injectable {
  inject(request: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    payload?: string;
  }): Promise<Injected>;
  decorateRequest(name: string): void;
  addContentTypeParser(
    type: string,
    options: object,
    parser: (req: unknown, body: unknown, done: (e: null, b: unknown) => void) => void,
  ): void;
  addHook(name: 'preHandler', hook: (req: { fcontext?: object }, reply: unknown, done: () => void) => void): void;
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface Received {
  input?: Input;
  cloudevent?: { id: string; type: string };
}

const lines: string[] = [];
const sink = () =>
  new Writable({
    write(chunk, _e, cb) {
      lines.push(String(chunk));
      cb();
    },
  });

/** The runtime's server as its start() builds it (index.js, initializeServer), with Cascade's overrides, not listening. */
async function runtimeServer(authToken?: string) {
  const received: Received[] = [];
  const server = fastify({ logger: { level: 'warn', stream: sink() }, bodyLimit: 1024 });
  expect(shapeProblem(server)).toBeUndefined();
  installOverrides(server, pino({ level: 'silent' }), authToken);
  server.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  server.decorateRequest('fcontext');
  server.addHook('preHandler', (req, _reply, done) => {
    req.fcontext = new Context(req);
    done();
  });
  eventHandler(server);
  const func = (context: { cloudevent?: { id: string; type: string } }, body: unknown) => {
    received.push({ input: isInput(body) ? body : undefined, cloudevent: context.cloudevent });
    return { statusCode: 200, body: { ok: true } };
  };
  const probe = Object.assign((_req: unknown, reply: { send(b: string): void }) => reply.send('OK'), {
    path: '/healthz',
  });
  requestHandler(server, {
    func,
    funcConfig: { liveness: probe, readiness: Object.assign(probe.bind(null), { path: '/ready' }) },
  });
  await server.ready();
  servers.push(server);
  return { server, received };
}

const servers: Injectable[] = [];
afterEach(async () => {
  lines.length = 0;
  for (const s of servers.splice(0)) await s.close();
});

const JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'r' } },
};
const BINARY = {
  'content-type': 'application/json',
  'ce-specversion': '1.0',
  'ce-id': 'e1',
  'ce-type': 'dev.knative.apiserver.resource.update',
  'ce-source': 'https://kubernetes.default.svc',
  'ce-time': '2026-12-01T15:04:05Z',
};
const post = (headers: Record<string, string>, payload: string, url = '/') => ({
  method: 'POST',
  url,
  headers,
  payload,
});

describe("the runtime's shape", () => {
  it('fastify 4 as the runtime loads it has the shape; another major version or missing methods do not', async () => {
    const { server } = await runtimeServer();
    expect(shapeProblem(server)).toBeUndefined();
    expect(readyProblem(server)).toBeUndefined();
    expect(shapeProblem({ ...server, version: '5.0.0' })).toBe('fastify 5.0.0, not 4');
    expect(shapeProblem({ version: '4.29.1' })).toMatch(/^fastify lacks addHook, setErrorHandler/);
  });

  it("a server without the runtime's POST / or its request decorators is not the runtime's", async () => {
    const bare = fastify({ logger: false });
    servers.push(bare);
    await bare.ready();
    expect(readyProblem(bare)).toBe('the runtime serves no POST /');
  });

  it('no server published on the channel in the turn of init(): the start is refused', async () => {
    const reasons: string[] = [];
    overrideRuntime(pino({ level: 'silent' }), undefined, (reason) => reasons.push(reason));
    await new Promise((r) => setImmediate(r));
    expect(reasons).toEqual(['no server was published on the diagnostics channel fastify.initialization']);
  });

  it("a server published in that turn gets the overrides, and is refused once ready when it lacks the runtime's routes", async () => {
    const reasons: string[] = [];
    overrideRuntime(pino({ level: 'silent' }), undefined, (reason) => reasons.push(reason));
    const server = fastify({ logger: false });
    servers.push(server);
    const res = await server.inject({ method: 'GET', url: '/nowhere' });
    expect(res.json()).toEqual({
      error: 'no route GET "/nowhere": the function serves POST / (the Go controller\'s POST /run is now POST /)',
    });
    await new Promise((r) => setImmediate(r));
    expect(reasons).toEqual(['the runtime serves no POST /']); // a bare fastify, not the runtime
  });
});

describe('each override', () => {
  it('execTimer: a request refused while its body is read logs no execTimer TypeError', async () => {
    const { server } = await runtimeServer();
    const res = await server.inject(post({ 'content-type': 'application/json' }, '{"x":'));
    expect(res.statusCode).toBe(400);
    expect(lines.join('')).not.toContain('execTimer');
  });

  it('edge: a binary Job event reaches the function as its typed input, without the SDK', async () => {
    const { server, received } = await runtimeServer();
    const res = await server.inject(post(BINARY, JSON.stringify(JOB)));
    expect(res.statusCode).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]!.cloudevent).toBeUndefined();
    expect(received[0]!.input).toMatchObject({
      eventId: 'e1',
      delivery: true,
      request: { kind: 'job', runname: 'r', job: 'j', change: 'update' },
    });
  });

  it("edge: a plain body reaches the function as its typed input; an event the fast path leaves is the SDK's", async () => {
    const { server, received } = await runtimeServer();
    await server.inject(
      post({ 'content-type': 'application/json' }, JSON.stringify({ turlinfo: 's3://x', iuid: 'abcdef' })),
    );
    const structured = {
      specversion: '1.0',
      id: 's1',
      source: '/t',
      type: 'net.cascade.run.requested.v1',
      data: { turlinfo: 's3://x', iuid: 'abcdef' },
    };
    await server.inject(post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify(structured)));
    expect(received[0]!.input).toMatchObject({ eventId: undefined, delivery: false, request: { kind: 'run' } });
    expect(received[1]).toMatchObject({
      input: undefined,
      cloudevent: { id: 's1', type: 'net.cascade.run.requested.v1' },
    });
  });

  it('edge: a malformed CloudEvent or a JSON string is refused before the function', async () => {
    const { server, received } = await runtimeServer();
    const noId = Object.fromEntries(Object.entries(BINARY).filter(([k]) => k !== 'ce-id'));
    const res = await server.inject(post(noId, JSON.stringify(JOB)));
    expect([res.statusCode, res.json()]).toEqual([
      400,
      { error: 'binary CloudEvent: missing required attribute id (header ce-id)' },
    ]);
    expect((await server.inject(post({ 'content-type': 'application/json' }, '"text"'))).statusCode).toBe(400);
    expect(received).toEqual([]);
  });

  it('refusals: a body over the limit and an event the SDK refuses are answered {error}', async () => {
    const { server, received } = await runtimeServer();
    const big = await server.inject(
      post({ 'content-type': 'application/json' }, JSON.stringify({ x: 'y'.repeat(2000) })),
    );
    expect([big.statusCode, big.json()]).toEqual([413, { error: 'the body is larger than the limit of 1024 bytes' }]);
    const bad = await server.inject(post({ ...BINARY, 'ce-trace-id': 'x' }, JSON.stringify(JOB)));
    expect([bad.statusCode, bad.json()]).toEqual([
      400,
      { error: 'not a valid CloudEvent: invalid attribute name: "trace-id"' },
    ]);
    expect(received).toEqual([]);
  });

  it('cors: no access-control-* header on a call or a preflight', async () => {
    const { server } = await runtimeServer();
    const call = await server.inject(
      post({ 'content-type': 'application/json', origin: 'https://pages.example' }, '{}'),
    );
    const preflight = await server.inject({
      method: 'OPTIONS',
      url: '/',
      headers: { origin: 'https://pages.example' },
    });
    expect(preflight.statusCode).toBe(204);
    for (const res of [call, preflight])
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('notFound: an unknown route is answered {error}', async () => {
    const { server } = await runtimeServer();
    const res = await server.inject({ method: 'POST', url: '/run' });
    expect([res.statusCode, res.json().error]).toEqual([
      404,
      'no route POST "/run": the function serves POST / (the Go controller\'s POST /run is now POST /)',
    ]);
  });

  it('callerToken: `/` without the token is answered 401 with a challenge; with it, and the probes, are served', async () => {
    const { server, received } = await runtimeServer('s3cret');
    const without = await server.inject(post({ 'content-type': 'application/json' }, '{}'));
    expect([without.statusCode, without.headers['www-authenticate']]).toEqual([401, 'Bearer realm="cascade"']);
    const withToken = await server.inject(
      post({ 'content-type': 'application/json', authorization: 'Bearer s3cret' }, '{}'),
    );
    expect(withToken.statusCode).toBe(200);
    expect((await server.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect(received).toHaveLength(1);
  });
});

describe('isSdkValidationError', () => {
  it("tells the runtime SDK's ValidationError, with or without details, from other errors", () => {
    expect(isSdkValidationError(new RuntimeValidationError('invalid payload', [{ instancePath: '/time' }]))).toBe(true);
    expect(isSdkValidationError(new RuntimeValidationError('invalid spec version'))).toBe(true);
    expect(isSdkValidationError(new TypeError('x'))).toBe(false);
    expect(isSdkValidationError(Object.assign(new Error('x'), { errors: [] }))).toBe(false);
    expect(isSdkValidationError(Object.assign(new TypeError('x'), { errors: 'no list' }))).toBe(false);
  });
});
