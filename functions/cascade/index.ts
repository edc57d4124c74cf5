// The Cascade function as faas-js-runtime (and `func`) loads it: `handle` for
// every request on `/`, the Go controller's /healthz and /ready as the
// runtime's liveness and readiness probes, and graceful shutdown. Start-up only
// reads the configuration. The deployable's serve.ts loads the engine, app.ts,
// while the runtime creates its server: prefetch. Under the CLI it loads on
// the first request or readiness probe. Either way the first request finds it
// loaded and the API server's connection open.
import type { App } from './app.ts';
import { buildInfo } from './build-info.ts';
import { inputOfEvent, isInput, type Input } from './edge.ts';
import { overrideRuntime } from './runtime-overrides.ts';
import { loadConfig, rootLogger } from './wiring.ts';

interface ProbeReply {
  code(status: number): ProbeReply;
  header(name: string, value: string): ProbeReply;
  send(body: unknown): void;
}

let app: Promise<App> | undefined;
let load: (() => Promise<App>) | undefined;
let crashed = false;
let logger: ReturnType<typeof rootLogger> | undefined;
/** How long SIGTERM waits for the engine and its drain: CASCADE_SHUTDOWN_GRACE_SECONDS. */
let graceMs = 25_000;

export function init(): void {
  const config = loadConfig(process.env);
  const log = rootLogger(config);
  logger = log;
  graceMs = config.shutdownGraceSeconds * 1000;
  for (const warning of config.warnings) log.warn(warning);
  overrideRuntime(log, config.authToken);
  // faas-js-runtime traps uncaught exceptions with `death` as it traps
  // SIGTERM: shutdown() drains, then the runtime exits 0 and nothing prints
  // the error. Log it, and exit 1 once drained (see shutdown).
  process.on('uncaughtException', (error) => {
    crashed = true;
    log.fatal({ err: error }, 'uncaught exception: draining, then exiting 1');
  });
  load = () => {
    if (!app) {
      app = import('./app.ts').then((m) => m.createApp(config, log));
      // Configuration it cannot start with (no cluster configuration, a bad
      // kubeconfig) does not mend itself: say why once and exit 1, so that
      // the pod restarts and shows it, rather than stay up and never ready.
      app.catch((error: unknown) => {
        log.fatal({ err: error }, 'the function could not start: exiting 1');
        process.exit(1);
      });
    }
    return app;
  };
}

function loaded(): Promise<App> {
  if (!load) init();
  return load!();
}

/**
 * Loads the engine and opens the API server's connection now, not on the
 * first request or readiness probe. The deployable's serve.ts calls it from
 * init(), before the runtime creates its server. So the TLS handshake is done
 * while the runtime starts, and the first request reuses that connection.
 * Under the CLI, as `npm run start:process` runs it, the engine loads lazily.
 */
export function prefetch(): void {
  loaded().catch(() => undefined);
}

/** What the runtime hands the function: its context (the SDK's event, if the SDK read one) and the body. */
interface RuntimeContext {
  cloudevent?: { id: string; type: string; data?: unknown } | undefined;
}

/**
 * The request's input: made by edge.ts in the runtime's hook (the body), or
 * from the event the SDK read. The overrides read every request to `/`, and
 * the function does not start without them.
 */
function inputOf(context: RuntimeContext, body: unknown): Input {
  const ce = context.cloudevent;
  if (ce) return inputOfEvent({ id: ce.id, type: ce.type, data: ce.data });
  if (isInput(body)) return body;
  throw new Error('the request reached the function unread by its edge (functions/cascade/runtime-overrides.ts)');
}

export async function handle(context: RuntimeContext, body?: unknown) {
  const input = inputOf(context, body);
  return (await loaded()).handle(input);
}

const build = buildInfo(process.env);

export const liveness = Object.assign(
  (_req: unknown, reply: ProbeReply) => {
    reply
      .code(200)
      .header('content-type', 'application/json')
      .send({ app_name: 'cascadescenariocontroller-auto', status: 'OK', ...build });
  },
  { path: '/healthz' },
);

export const readiness = Object.assign(
  async (_req: unknown, reply: ProbeReply) => {
    let ready = false;
    try {
      ready = !(await loaded()).draining();
    } catch {
      ready = false;
    }
    reply
      .code(ready ? 200 : 503)
      .header('content-type', 'text/plain')
      .send(ready ? 'OK' : 'not ready');
    return reply;
  },
  { path: '/ready' },
);

let stopping: Promise<void> | undefined;

/**
 * The drain the runtime awaits on SIGTERM or an uncaught exception, then it
 * exits 0. Started once, however often asked (a second signal, an exception
 * while draining), and it never throws: the runtime would take a rejection
 * as another uncaught exception and call it again, without end.
 */
export function shutdown(): Promise<void> {
  stopping ??= drain();
  return stopping;
}

/** The engine once loaded; `late` if it is still loading at `deadline`. It rejects if the load failed. */
async function engineBy(loading: Promise<App>, deadline: number): Promise<App | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadline - Date.now())));
  try {
    return await Promise.race([loading, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The drain, bounded in every state. No engine asked for: nothing to drain.
 * The engine loading: it gets the grace period to load, then drains in what
 * is left. A load that failed or did not end in time: one fatal line, exit 1.
 */
async function drain(): Promise<void> {
  const deadline = Date.now() + graceMs;
  let failed = false;
  try {
    const engine = app ? await engineBy(app, deadline) : undefined;
    if (engine === 'late') {
      failed = true;
      logger?.fatal({ graceMs }, 'shutdown: the engine did not load within the grace period: exiting 1');
    } else if (engine) {
      await engine.shutdown(Math.max(0, deadline - Date.now()));
    }
  } catch (error) {
    failed = true;
    logger?.fatal({ err: error }, 'shutdown: the engine failed to load or to drain: exiting 1');
  }
  await Promise.resolve(); // after every uncaughtException listener of this emit (crashed)
  if (crashed || failed) process.exit(1);
}
