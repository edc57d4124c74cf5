// The ui's HTTP server: the page, its assets, the JSON API and the event
// stream, all from the state the watches keep. Every request passes the Host
// check first; an action needs the per-start token as well.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, type Kube } from '../kube/connect.ts';
import { CASCADE_AUTO_OPERATOR_PLURAL, CASCADE_RUN_PLURAL } from '../../shared/api/group.ts';
import type { RunObject } from '../runs/run-object.ts';
import { runAction } from './actions.ts';
import type { PageAssets } from './assets.ts';
import { inform } from './informer.ts';
import { pageHtml } from './page-html.ts';
import { TOKEN_HEADER, runKey, type RunDetail } from './protocol.ts';
import { jobOfStep, runEvents, runJobs, stepLogs } from './reads.ts';
import { matchRoute, type Route } from './routes.ts';
import { allowedHosts, hostAllowed, hostPort, originAllowed, SECURITY_HEADERS, tokenMatches } from './security.ts';
import { scenarioDetail } from './scenario-detail.ts';
import { UiState } from './state.ts';
import { streamHub, type StreamHub } from './stream.ts';
import type { OperatorObject } from './summary.ts';

export interface UiOptions {
  kube: Kube;
  /** The namespace watched; undefined: every namespace (-A). */
  namespace: string | undefined;
  address: string;
  port: number;
  assets: PageAssets;
  /** What the header names: the context and namespace. */
  context: string;
  /** How long an action waits for the run to show it handled. */
  actionWaitMs?: number;
}

export interface UiServer {
  url: string;
  token: string;
  state: UiState;
  /** Resolved once the first lists of runs and scenarios are in (or failed). */
  ready: Promise<void>;
  close(): Promise<void>;
}

interface Ctx {
  /** Resolved once the first lists are in (or failed): the reads wait for it. */
  ready: Promise<void>;
  opts: UiOptions;
  state: UiState;
  hub: StreamHub;
  token: string;
  hosts: Set<string>;
  html: string;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type });
  res.end(body);
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

const fail = (res: ServerResponse, status: number, error: string) => json(res, status, { error });

async function runDetail(ctx: Ctx, namespace: string, name: string, run: RunObject): Promise<RunDetail> {
  const errors: string[] = [];
  const [events, jobs] = await Promise.all([
    runEvents(ctx.opts.kube, namespace, name).catch((e: unknown) => (errors.push(describeError(e)), [])),
    runJobs(ctx.opts.kube, namespace, name).catch((e: unknown) => (errors.push(describeError(e)), [])),
  ]);
  return { run, events, jobs, errors };
}

const intParam = (url: URL, key: string): number | undefined => {
  const v = url.searchParams.get(key);
  return v !== null && /^\d{1,4}$/.test(v) ? Number(v) : undefined;
};

async function serveLogs(ctx: Ctx, res: ServerResponse, at: { namespace: string; name: string }, url: URL) {
  const run = ctx.state.runs.get(runKey(at.namespace, at.name));
  if (!run) return fail(res, 404, `cascaderun ${at.name} is not in namespace ${at.namespace}`);
  const step = intParam(url, 'step');
  if (step === undefined) return fail(res, 400, 'step: give the step as a number from 0');
  const attempt = url.searchParams.has('attempt') ? intParam(url, 'attempt') : undefined;
  const job = jobOfStep(run, step, attempt);
  if (!job)
    return fail(res, 404, `cascaderun ${at.name} has no Job for step ${step}${attempt ? ` attempt ${attempt}` : ''}`);
  try {
    json(res, 200, await stepLogs(ctx.opts.kube, at.namespace, job));
  } catch (error) {
    fail(res, 502, describeError(error));
  }
}

async function serveAction(
  ctx: Ctx,
  req: IncomingMessage,
  res: ServerResponse,
  route: Extract<Route, { kind: 'action' }>,
) {
  const given = req.headers[TOKEN_HEADER];
  if (!tokenMatches(typeof given === 'string' ? given : undefined, ctx.token))
    return fail(res, 403, `an action needs the token of this ui's page in the ${TOKEN_HEADER} header`);
  if (!originAllowed(req.headers.origin, ctx.hosts)) return fail(res, 403, `origin ${req.headers.origin} refused`);
  req.resume();
  const answer = await runAction(ctx.opts.kube, ctx.state, { ...route, waitMs: ctx.opts.actionWaitMs ?? 20_000 });
  json(res, answer.state === 'error' ? (answer.status ?? 502) : 200, answer);
}

/** One request: what it asked, and where the answer goes. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
}

/** The page, its assets and the lists, all from memory. */
function serveStatic(ctx: Ctx, res: ServerResponse, route: Route): boolean {
  const { state } = ctx;
  if (route.kind === 'page') send(res, 200, 'text/html; charset=utf-8', ctx.html);
  else if (route.kind === 'asset' && route.file === 'app.js')
    send(res, 200, 'text/javascript; charset=utf-8', ctx.opts.assets.js);
  else if (route.kind === 'asset') send(res, 200, 'text/css; charset=utf-8', ctx.opts.assets.css);
  else if (route.kind === 'runs') send(res, 200, 'application/json; charset=utf-8', state.runsJson());
  else if (route.kind === 'scenarios') json(res, 200, state.scenarios());
  else return false;
  return true;
}

async function serveRoute(ctx: Ctx, x: Exchange, route: Route): Promise<void> {
  const { state } = ctx;
  const { req, res, url } = x;
  if (route.kind !== 'page' && route.kind !== 'asset') await ctx.ready;
  if (serveStatic(ctx, res, route)) return;
  switch (route.kind) {
    case 'stream':
      return ctx.hub.add(res, SECURITY_HEADERS);
    case 'run': {
      const run = state.runs.get(runKey(route.namespace, route.name));
      if (!run) return fail(res, 404, `cascaderun ${route.name} is not in namespace ${route.namespace}`);
      return json(res, 200, await runDetail(ctx, route.namespace, route.name, run));
    }
    case 'scenario': {
      const op: OperatorObject | undefined = state.operators.get(runKey(route.namespace, route.name));
      if (!op) return fail(res, 404, `cascadeautooperator ${route.name} is not in namespace ${route.namespace}`);
      return json(res, 200, scenarioDetail(state, op, Date.now()));
    }
    case 'logs':
      return serveLogs(ctx, res, route, url);
    case 'action':
      return serveAction(ctx, req, res, route);
  }
}

function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): void {
  if (!hostAllowed(req.headers.host, ctx.hosts))
    return fail(res, 403, `host ${req.headers.host ?? '(none)'} refused: this ui answers ${[...ctx.hosts].join(', ')}`);
  const url = new URL(req.url ?? '/', 'http://ui.invalid');
  const matched = matchRoute(req.method ?? 'GET', url.pathname);
  if ('status' in matched)
    return fail(res, matched.status, matched.status === 404 ? 'not found' : 'method not allowed');
  serveRoute(ctx, { req, res, url }, matched.route).catch((error: unknown) => {
    if (!res.headersSent) fail(res, 500, describeError(error));
    else res.end();
  });
}

function watchAll(opts: UiOptions, state: UiState, signal: AbortSignal): Promise<void> {
  const at = { kube: opts.kube, namespace: opts.namespace, signal };
  const runs = inform<RunObject>({
    ...at,
    plural: CASCADE_RUN_PLURAL,
    handlers: {
      current: () => state.setError('runs', undefined),
      upsert: (run) => state.upsertRun(run),
      remove: (run) => state.removeRun(run),
      failed: (error) => state.setError('runs', `runs: ${describeError(error)}`),
    },
  });
  const scenarios = inform<OperatorObject>({
    ...at,
    plural: CASCADE_AUTO_OPERATOR_PLURAL,
    handlers: {
      current: () => state.setError('scenarios', undefined),
      upsert: (op) => state.upsertOperator(op),
      remove: (op) => state.removeOperator(op),
      failed: (error) => state.setError('scenarios', `scenarios: ${describeError(error)}`),
    },
  });
  return Promise.all([runs, scenarios]).then(() => {});
}

const listen = (server: Server, port: number, address: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve((server.address() as AddressInfo).port));
  });

export async function startUiServer(opts: UiOptions): Promise<UiServer> {
  const state = new UiState();
  const watching = new AbortController();
  const ready = watchAll(opts, state, watching.signal);
  const hub = streamHub(state, ready, { namespace: opts.namespace, allNamespaces: opts.namespace === undefined });
  const token = randomBytes(32).toString('base64url');
  const ctx: Ctx = { ready, opts, state, hub, token, hosts: new Set(), html: pageHtml(token, opts.context) };
  const server = createServer((req, res) => handle(ctx, req, res));
  let port: number;
  try {
    port = await listen(server, opts.port, opts.address);
  } catch (error) {
    watching.abort();
    hub.close();
    throw error;
  }
  for (const h of allowedHosts(opts.address, port)) ctx.hosts.add(h);
  return {
    url: `http://${hostPort(opts.address, port)}/`,
    token,
    state,
    ready,
    close: async () => {
      watching.abort();
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
