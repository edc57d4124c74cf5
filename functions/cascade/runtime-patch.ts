// What Cascade adds to faas-js-runtime 4.0.1's HTTP server (fastify 4), set up
// when the runtime creates it: fastify publishes every new instance on the
// documented diagnostics channel `fastify.initialization`, and the runtime
// calls init() before it creates the server. Five additions, each for a
// defect of the runtime as it is, and a sixth for its cost:
//
// 1. Requests the runtime refuses before the function (invalid JSON, an empty
//    JSON body, a `__proto__` key, a body over the limit, a CloudEvent the SDK
//    refuses) logged `TypeError: req.execTimer is not a function` at error
//    level. The runtime's metrics plugin (lib/metrics.js) starts
//    `req.execTimer` in a preHandler hook and calls it in an onResponse hook;
//    a request refused while its body is parsed, or by an earlier preHandler
//    (the runtime's own CloudEvent check), never runs that preHandler, so
//    onResponse calls undefined. Every request now starts with a no-op
//    `execTimer`, which the preHandler replaces when it runs: nothing ran, so
//    nothing is timed.
// 2. The CloudEvents SDK lets malformed events through (see
//    cloudevent-envelope.ts); a request that is not a whole CloudEvent 1.0 is
//    answered 400 before the SDK sees it. So is a JSON string sent as
//    `application/json`, which the runtime's invoker parses again and, when
//    that fails, prints with console.error (see plain-body.ts).
// 3. fastify answered those refusals in its own shape
//    (`{statusCode, error: "Bad Request", message}`, the SDK's
//    ValidationError as a 500 with a multi-line message): every refusal is
//    now `{error}` with a one-line reason, as every reply of the function.
//    The error handler replies synchronously: the runtime's CloudEvent
//    preHandler calls `done(err)` and then `done()` again, and only a reply
//    already sent stops that second call from running the function.
// 4. The runtime answers every call of the function, and `OPTIONS /`, with
//    `access-control-allow-origin: *` (and allowed methods and headers): any
//    web page a browser shows could make it start runs, which create Jobs.
//    Every `access-control-*` header is removed from every reply, so a
//    browser refuses cross-origin calls (a preflight gets 204 without them).
// 5. The runtime asks its CloudEvents SDK whether a request is an event
//    (request.isCloudEvent(): the SDK deserializes it, and throws and catches
//    a ValidationError for a plain body), then deserializes it again: every
//    event was parsed twice, every plain body paid for an exception and its
//    stack. The preValidation hook above has told an event from a plain body
//    already (refusing anything between), so the question is answered from
//    that: the SDK parses each event once.
// 6. Nor does the SDK read a binary event it would take as it is (most of
//    the events a step transition brings: the ApiServerSource's, the
//    Broker's): binary-event.ts reads it from the headers and the parsed
//    body, the runtime is told it is a plain call, and index.ts hands the
//    function that event (checkedEventOf). Any other event is the SDK's, as
//    before.
// And one opt-in check: with CASCADE_AUTH_TOKEN set, a request to `/` without
// `Authorization: Bearer <token>` is answered 401 before its body is read
// (caller-token.ts); the probes stay open.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Logger } from 'pino';
import { quote } from '../../shared/api/reason.ts';
import { CHALLENGE, callerAllowed } from './caller-token.ts';
import { checkedBinaryEvent, type CheckedEvent } from './binary-event.ts';
import { envelopeOf, type Envelope, type Headers } from './cloudevent-envelope.ts';
import { isJsonString, NOT_AN_OBJECT } from './plain-body.ts';
import { refusalOf, type RuntimeError } from './refusal.ts';
import { refused, type Reply } from './reply.ts';

const CHANNEL = 'fastify.initialization';

type Done = (error?: Error) => void;
interface RuntimeRequest {
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
type SendHook = (request: RuntimeRequest, reply: RuntimeReply, payload: unknown, done: (error: Error | null, payload: unknown) => void) => void;
/** The part of a fastify 4 instance used here. */
export interface RuntimeServer {
  initialConfig: { bodyLimit?: number };
  addHook(name: 'onRequest' | 'preValidation', hook: Hook): unknown;
  addHook(name: 'onSend', hook: SendHook): unknown;
  setErrorHandler(handler: (error: Error, request: RuntimeRequest, reply: RuntimeReply) => void): unknown;
  setNotFoundHandler(handler: (request: RuntimeRequest, reply: RuntimeReply) => void): unknown;
}

type SdkError = Error & { errors?: unknown };

/** Binary events read without the SDK (item 6), by the body the runtime hands the function. */
const checkedEvents = new WeakMap<object, CheckedEvent>();

/** The binary event item 6 read for this body, if it did. */
export function checkedEventOf(body: unknown): CheckedEvent | undefined {
  return typeof body === 'object' && body !== null ? checkedEvents.get(body) : undefined;
}

/**
 * Whether an error is the CloudEvents SDK's ValidationError, from the SDK copy
 * the runtime loads (not ours): the only TypeError the runtime raises with an
 * `errors` list. Told by its shape, not its class, so that it holds when the
 * runtime is bundled with the function (scripts/bundle.mjs) as when it is
 * loaded from node_modules.
 */
export function isSdkValidationError(error: Error): error is SdkError & { errors: unknown[] } {
  return error instanceof TypeError && Array.isArray((error as SdkError).errors);
}

function send(reply: RuntimeReply, r: Reply): void {
  reply.code(r.statusCode).headers(r.headers).send(r.body);
}

function described(error: Error & Partial<RuntimeError>): RuntimeError {
  const { name, message, code, statusCode } = error;
  return { name, message, code, statusCode, ...(isSdkValidationError(error) ? { cloudEventErrors: error.errors } : {}) };
}

/** Why a request to the function is refused before the runtime reads it, if it is. */
function problemOf(request: RuntimeRequest, envelope: Envelope): string | undefined {
  if (envelope.kind === 'malformed') return envelope.reason;
  if (envelope.kind === 'plain' && isJsonString(request.headers, request.body)) return NOT_AN_OBJECT;
  return undefined;
}

/** The CORS headers among a reply's headers (the runtime's `access-control-*`), to be removed. */
export function corsHeaderNames(headers: Record<string, unknown>): string[] {
  return Object.keys(headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
}

/** Adds the six patches above to the runtime's server, and the caller check when `authToken` is set. */
export function patchServer(server: RuntimeServer, log: Logger, authToken?: string): void {
  const bodyLimit = server.initialConfig.bodyLimit ?? 1_048_576;
  const refuse = (request: RuntimeRequest, reply: RuntimeReply, statusCode: number, reason: string) => {
    log.warn({ method: request.method, url: request.url, status: statusCode, reason }, 'refused before the function');
    send(reply, refused(statusCode, reason));
  };
  server.addHook('onRequest', (request, reply, done) => {
    request.execTimer = () => {};
    if (authToken === undefined || request.routeOptions.url !== '/' || callerAllowed(request.headers.authorization, authToken)) return done();
    log.warn({ method: request.method, url: request.url, status: 401 }, 'refused before the function');
    const r = refused(401, 'no valid caller token: send Authorization: Bearer <the token of CASCADE_AUTH_TOKEN>');
    send(reply, { ...r, headers: { ...r.headers, 'www-authenticate': CHALLENGE } }); // replied: the request ends here
  });
  server.addHook('preValidation', (request, reply, done) => {
    const envelope = envelopeOf(request.headers, request.body);
    // The runtime asks in its preHandler, next: an event, or a plain body (anything between is refused here).
    const checked = envelope.kind === 'event' && envelope.mode === 'binary' ? checkedBinaryEvent(request.headers, request.body) : undefined;
    if (checked) checkedEvents.set(checked.data, checked);
    request.isCloudEvent = () => envelope.kind === 'event' && !checked;
    const reason = request.routeOptions.url === '/' ? problemOf(request, envelope) : undefined;
    if (reason) refuse(request, reply, 400, reason); // replied: the request ends here
    else done();
  });
  server.setErrorHandler((error, request, reply) => {
    const refusal = refusalOf(described(error), bodyLimit);
    if (refusal) return refuse(request, reply, refusal.statusCode, refusal.reason);
    log.error({ err: error, method: request.method, url: request.url }, 'request failed in the runtime');
    send(reply, refused(500, `internal error: ${error.message}`));
  });
  server.addHook('onSend', (_request, reply, payload, done) => {
    for (const name of corsHeaderNames(reply.getHeaders())) reply.removeHeader(name);
    done(null, payload);
  });
  server.setNotFoundHandler((request, reply) => {
    refuse(request, reply, 404, `no route ${request.method} ${quote(request.url.split('?')[0])}: the function serves POST / (the Go controller's POST /run is now POST /)`);
  });
}

/** Patches the runtime's server when it is created: call before the runtime creates it (the function's init()). */
export function patchRuntime(log: Logger, authToken?: string): void {
  const onInit = (message: unknown) => {
    unsubscribe(CHANNEL, onInit);
    patchServer((message as { fastify: RuntimeServer }).fastify, log, authToken);
  };
  subscribe(CHANNEL, onInit);
}
