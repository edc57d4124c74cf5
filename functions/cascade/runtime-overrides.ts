// Every behaviour of faas-js-runtime 4.0.1 (on fastify 4) that Cascade
// overrides, each named once below, each with its test in
// runtime-overrides.test.ts. They are installed when the runtime creates its
// server: fastify publishes each new instance on the documented diagnostics
// channel `fastify.initialization`, and the runtime calls init() first.
//
// | override | the runtime's behaviour it replaces |
// |---|---|
// | `execTimer` | A request refused before the runtime's preHandler logs `req.execTimer is not a function` at error level. Every request now starts with a no-op timer. |
// | `edge` | The SDK lets malformed CloudEvents through and parses each event twice. edge.ts reads the request once; the function receives its typed input as the body. |
// | `refusals` | fastify answers refusals in its own shape, and the SDK's as a 500. Every refusal is `{error}` with one line. |
// | `cors` | Every reply allows any origin. Every `access-control-*` header is removed. |
// | `notFound` | An unknown route gets fastify's 404 shape. It gets `{error}` too. |
// | `callerToken` | With CASCADE_AUTH_TOKEN set, `/` without the bearer token is answered 401. The probes stay open. |
//
// The function refuses to start, with one fatal line and exit code 1, when the
// runtime is not of the shape these were written for (shapeProblem).
// The change the runtime's project could take is in docs/upstream/: a
// `configure` export and four fixes. With it, `execTimer` and the
// diagnostics channel go, and the others are set in `configure`.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Logger } from 'pino';
import { quote } from '../../shared/api/reason.ts';
import { CHALLENGE, callerAllowed } from './caller-token.ts';
import type { Headers } from './cloudevent-envelope.ts';
import { readRequest } from './edge.ts';
import { refusalOf, type RuntimeError } from './refusal.ts';
import { refused, type Reply } from './reply.ts';

const CHANNEL = 'fastify.initialization';

type Done = (error?: Error) => void;
export interface RuntimeRequest {
  method: string;
  url: string;
  headers: Headers;
  body?: unknown;
  routeOptions: { url?: string };
  execTimer?: () => void;
  isCloudEvent?: () => boolean;
}
interface RuntimeReply {
  code(status: number): RuntimeReply;
  headers(values: Record<string, string>): RuntimeReply;
  send(body: unknown): RuntimeReply;
  getHeaders(): Record<string, unknown>;
  removeHeader(name: string): RuntimeReply;
}
type Hook = (request: RuntimeRequest, reply: RuntimeReply, done: Done) => void;
type SendHook = (
  request: RuntimeRequest,
  reply: RuntimeReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
) => void;
/** The part of a fastify 4 instance used here. */
export interface RuntimeServer {
  version: string;
  initialConfig: { bodyLimit?: number };
  addHook(name: 'onRequest' | 'preValidation', hook: Hook): unknown;
  addHook(name: 'onSend', hook: SendHook): unknown;
  addHook(name: 'onReady', hook: (done: Done) => void): unknown;
  setErrorHandler(handler: (error: Error, request: RuntimeRequest, reply: RuntimeReply) => void): unknown;
  setNotFoundHandler(handler: (request: RuntimeRequest, reply: RuntimeReply) => void): unknown;
  hasRequestDecorator(name: string): boolean;
  hasRoute(route: { method: string; url: string }): boolean;
}

/** Why the server is not of the shape the overrides were written for, when it is created; undefined if it is. */
export function shapeProblem(server: Partial<RuntimeServer>): string | undefined {
  if (typeof server.version !== 'string' || !server.version.startsWith('4.'))
    return `fastify ${String(server.version)}, not 4`;
  const missing = ['addHook', 'setErrorHandler', 'setNotFoundHandler', 'hasRequestDecorator', 'hasRoute'].filter(
    (m) => typeof server[m as keyof RuntimeServer] !== 'function',
  );
  return missing.length > 0 ? `fastify lacks ${missing.join(', ')}` : undefined;
}

/** Why the server is not the runtime's, once its plugins are registered; undefined if it is. */
export function readyProblem(server: RuntimeServer): string | undefined {
  if (!server.hasRoute({ method: 'POST', url: '/' })) return 'the runtime serves no POST /';
  const missing = ['fcontext', 'isCloudEvent'].filter((name) => !server.hasRequestDecorator(name));
  return missing.length > 0 ? `the runtime's request lacks ${missing.join(', ')}` : undefined;
}

/**
 * Whether an error is the CloudEvents SDK's ValidationError, from the SDK copy
 * the runtime loads: the only TypeError the runtime raises with an `errors`
 * list. Told by its shape, not its class: the bundle (scripts/bundle.ts) and
 * node_modules hold different copies of the class.
 */
export function isSdkValidationError(error: Error): error is Error & { errors: unknown[] } {
  return error instanceof TypeError && Array.isArray((error as { errors?: unknown }).errors);
}

function described(error: Error & Partial<RuntimeError>): RuntimeError {
  const { name, message, code, statusCode } = error;
  return {
    name,
    message,
    code,
    statusCode,
    ...(isSdkValidationError(error) ? { cloudEventErrors: error.errors } : {}),
  };
}

/** The CORS headers among a reply's headers (the runtime's `access-control-*`), to be removed. */
export function corsHeaderNames(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
}

function send(reply: RuntimeReply, r: Reply): void {
  reply.code(r.statusCode).headers(r.headers).send(r.body);
}

/** Installs every override of the table above on the runtime's server. */
export function installOverrides(server: RuntimeServer, log: Logger, authToken?: string): void {
  const bodyLimit = server.initialConfig.bodyLimit ?? 1_048_576;
  const refuse = (request: RuntimeRequest, reply: RuntimeReply, statusCode: number, reason: string) => {
    log.warn({ method: request.method, url: request.url, status: statusCode, reason }, 'refused before the function');
    send(reply, refused(statusCode, reason));
  };
  // execTimer, callerToken
  server.addHook('onRequest', (request, reply, done) => {
    request.execTimer = () => {};
    if (
      authToken === undefined ||
      request.routeOptions.url !== '/' ||
      callerAllowed(request.headers.authorization, authToken)
    )
      return done();
    reply.headers({ 'www-authenticate': CHALLENGE });
    refuse(request, reply, 401, 'no valid caller token: send Authorization: Bearer <the token of CASCADE_AUTH_TOKEN>');
  });
  // edge: the runtime's preHandler asks isCloudEvent() next, and hands the function `request.body`.
  server.addHook('preValidation', (request, reply, done) => {
    if (request.routeOptions.url !== '/') {
      request.isCloudEvent = () => false; // the probes and /metrics take no event
      return done();
    }
    const read = readRequest(request.headers, request.body);
    if (read.kind === 'refused') return refuse(request, reply, 400, read.reason);
    if (read.kind === 'input') request.body = read.input;
    request.isCloudEvent = () => read.kind === 'sdk-event';
    done();
  });
  // refusals: replied at once, because the runtime's CloudEvent preHandler
  // calls `done(err)` and then `done()`; only a reply already sent stops the
  // second call from running the function.
  server.setErrorHandler((error, request, reply) => {
    const refusal = refusalOf(described(error), bodyLimit);
    if (refusal) return refuse(request, reply, refusal.statusCode, refusal.reason);
    log.error({ err: error, method: request.method, url: request.url }, 'request failed in the runtime');
    send(reply, refused(500, `internal error: ${error.message}`));
  });
  // cors
  server.addHook('onSend', (_request, reply, payload, done) => {
    for (const name of corsHeaderNames(reply.getHeaders())) reply.removeHeader(name);
    done(null, payload);
  });
  // notFound
  server.setNotFoundHandler((request, reply) => {
    refuse(
      request,
      reply,
      404,
      `no route ${request.method} ${quote(request.url.split('?')[0])}: the function serves POST / (the Go controller's POST /run is now POST /)`,
    );
  });
}

/** How the process ends when the runtime is not of the expected shape: one fatal line, exit code 1. */
export function refuseToStart(log: Logger, reason: string): never {
  log.fatal({ reason }, 'faas-js-runtime is not the version whose behaviour Cascade overrides: exiting 1');
  process.exit(1);
}

/**
 * Installs the overrides on the runtime's server when it is created: call
 * before the runtime creates it (the function's init()). The runtime creates
 * it in the same turn of the event loop, so a server not seen by the next
 * turn means the overrides would never run: `fail` is called, as it is for a
 * server of another shape.
 */
export function overrideRuntime(
  log: Logger,
  authToken?: string,
  fail: (reason: string) => void = (reason) => refuseToStart(log, reason),
): void {
  let seen = false;
  const onInit = (message: unknown) => {
    unsubscribe(CHANNEL, onInit);
    seen = true;
    const server = (message as { fastify: RuntimeServer }).fastify;
    const problem = shapeProblem(server);
    if (problem) return fail(problem);
    installOverrides(server, log, authToken);
    server.addHook('onReady', (done) => {
      const late = readyProblem(server);
      if (late) fail(late);
      done();
    });
  };
  subscribe(CHANNEL, onInit);
  setImmediate(() => {
    if (seen) return;
    unsubscribe(CHANNEL, onInit);
    fail(`no server was published on the diagnostics channel ${CHANNEL}`);
  });
}
