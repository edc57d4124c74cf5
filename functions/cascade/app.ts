// The function's parts, put together once per process: engine deps with
// metrics and Kubernetes Events on every transition, the gate, Cascade's
// metrics port. Loaded lazily by index.ts so the runtime answers probes while
// the heavy Kubernetes client is still being imported.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../../shared/config.ts';
import type { EngineDeps, EngineHooks } from '../../shared/engine/deps.ts';
import { functionEngine } from '../../shared/engine/profiles.ts';
import { unavailable } from '../../shared/engine/entry/outcome.ts';
import { outbox as newOutbox, type Outbox } from '../../shared/engine/process/outbox.ts';
import { FUNCTION_SINK_POLICY, sinkNotifier } from '../../shared/engine/sink/sink.ts';
import { sinkOf } from '../../shared/engine/sink/sink-transport.ts';
import { wakePromoted } from '../../shared/engine/operator/admission.ts';
import { DEFAULT_RETRY } from '../../shared/kube/api-retry.ts';
import { connectStoreOpened } from '../../shared/kube/connect.ts';
import { keepLease, type KeptLease } from '../../shared/kube/lease.ts';
import { watchJobs, watchOperators, watchRuns, type WatchTo } from '../../shared/kube/watches.ts';
import type { WatchChange } from '../../shared/kube/watch-stream.ts';
import { firstSync, type FirstSync } from '../../shared/engine/sync/first-sync.ts';
import { ownJobEvent } from '../../shared/engine/sync/own-jobs.ts';
import { observeJobEvent } from '../../shared/engine/entry/observe-run.ts';
import type { JobObject } from '../../shared/core/observed-job.ts';
import { watchedJobs, type HeldJobs, type WatchedJobs } from '../../shared/engine/process/watched-jobs.ts';
import type { Connection } from '../../shared/kube/connection.ts';
import type { KeptWatch } from '../../shared/kube/watch-stream.ts';
import type { Rest } from '../../shared/kube/rest.ts';
import type { Store } from '../../shared/kube/store.ts';
import { eventOfDecision } from '../../shared/core/transition-event.ts';
import { cascadeMetrics, type CascadeMetrics } from '../../shared/metrics.ts';
import { gate, type Gate } from './gate.ts';
import { handleRequest } from './handle.ts';
import { laneOf } from './lane.ts';
import type { Input } from './edge.ts';
import { startMetricsServer } from './metrics-server.ts';
import { rateLimited, reply as replyTo, toDelivery, type Reply } from './reply.ts';

export interface App {
  handle(input: Input): Promise<Reply>;
  draining(): boolean;
  /**
   * Drains within `graceMs`: the requests in flight, then the run-end events
   * being sent, then the counters' Lease given up. It ends within `graceMs`
   * whatever the API server does.
   */
  shutdown(graceMs: number): Promise<void>;
}

interface Parts {
  config: Config;
  log: Logger;
  store: Store;
  metrics: CascadeMetrics;
  gate: Gate;
  outbox: Outbox;
  heldJobs: HeldJobs;
  leader: () => boolean;
}

function engine({ config, log, store, metrics, gate: g, outbox, heldJobs, leader }: Parts) {
  const hooks: EngineHooks = {
    conflict: () => metrics.conflicts.inc(),
    ignoredJob: (job) => metrics.ignoredJobs.labels({ reason: job.reason }).inc(),
    confirmed: (from) => metrics.confirmations.labels({ from }).inc(),
    transitions: (transitions, run) => {
      for (const t of transitions) metrics.transition(t, run.spec);
      const note = eventOfDecision(transitions);
      if (!note) return;
      // Written beside the reply, yet counted as in flight: the drain after
      // SIGTERM waits for it, so the Event of a decision is not lost at exit.
      g.track(() => store.recordEvent(run, note, new Date())).catch((error) =>
        log.warn({ err: error, run: run.metadata.name }, 'Kubernetes Event not recorded'),
      );
    },
    // Started beside the reply that ended a run, yet in flight: the drain after SIGTERM waits for it.
    promoted: (scenario, runs) => void g.track(() => wakePromoted(deps, scenario, runs)),
  };
  const notify = sinkNotifier(sinkOf(config, log), log, FUNCTION_SINK_POLICY);
  const deps = functionEngine(
    { config, store, log, now: () => new Date(), notify },
    {
      hooks,
      outbox,
      // A run request's start, after its reply: in flight, so the drain after SIGTERM waits for it.
      background: (work) => void g.track(() => work),
      heldJobs,
      leader,
    },
  );
  return deps;
}

/** The Lease whose holder writes the CascadeAutoOperators' counters (operator/counts-writer.ts). */
export const COUNTERS_LEASE = 'cascade-counters';

/** A cold start's first request does not share the CPU with the watches' TLS handshakes: they open this much later. */
const WATCHES_AFTER_MS = 1000;

type OwnJob = (change: WatchChange, job: JobObject) => void;

/**
 * The process's three watches. Its Jobs: the finished ones confirm Job events'
 * claims without a read of each Job (run/confirm-jobs.ts), and one this
 * process made moves its run at once (sync/own-jobs.ts). The operators: a
 * counter write starts from another replica's last write, not a 409. The
 * runs: a run this process holds is decided from another replica's last
 * write, not refused with a 409. The lists of runs and Jobs feed the first
 * sync, which moves the runs whose next move is due (sync/first-sync.ts).
 */
function openWatches(
  conn: Connection,
  namespace: string,
  to: { heldJobs: WatchedJobs; deps: EngineDeps; sync: FirstSync; ownJob: OwnJob },
  log: Logger,
): { stop(): void } {
  const open: KeptWatch[] = [];
  const timer = setTimeout(() => {
    const { watched } = to.deps;
    const { sync } = to;
    const seeJob: WatchTo<JobObject>['see'] = (change, job) => {
      to.heldJobs.see(change, job);
      watched.job(change, job);
      to.ownJob(change, job);
    };
    open.push(watchJobs(conn, namespace, { see: seeJob, listed: sync.jobsListed, log }));
    open.push(watchOperators(conn, namespace, { see: watched.operator, log }));
    open.push(watchRuns(conn, namespace, { see: watched.run, opened: watched.runsOpen, listed: sync.runsListed, log }));
  }, WATCHES_AFTER_MS);
  timer.unref();
  return {
    stop() {
      clearTimeout(timer);
      for (const w of open) w.stop();
    },
  };
}

/** This process's hold of the counters' Lease, from a second after its start, as its watches. */
function countersLease(rest: Rest, namespace: string, log: Logger, changed: (held: boolean) => void): KeptLease {
  const identity = `${hostname()}-${randomBytes(3).toString('hex')}`;
  return keepLease({ rest, namespace, name: COUNTERS_LEASE, identity, log, changed, startAfterMs: WATCHES_AFTER_MS });
}

/** A finished Job this process made moves its run now, as its event would (sync/own-jobs.ts); tracked by the gate. */
function ownJobs(deps: EngineDeps, g: Gate, log: Logger): OwnJob {
  return (change, job) => {
    const event = g.draining() ? undefined : ownJobEvent(deps.madeJobs, change, job);
    if (!event) return;
    g.track(() => observeJobEvent(deps, event)).catch((error: unknown) =>
      log.warn({ err: error, run: event.runname, job: event.observed?.name }, 'a finished Job left to its event'),
    );
  };
}

/** The first sync, its looks tracked by the gate and counted in the metrics. */
function syncOf(deps: EngineDeps, g: Gate, metrics: CascadeMetrics): FirstSync {
  return firstSync(deps, {
    track: g.track,
    stopping: g.draining,
    passed: (pass) => {
      metrics.syncPasses.inc();
      for (const [move, n] of Object.entries(pass.moved)) metrics.syncMoves.labels({ move }).inc(n);
    },
  });
}

export function createApp(config: Config, log: Logger): App {
  const metrics = cascadeMetrics(config.scenarioName);
  const { store, conn, rest } = connectStoreOpened(config.namespace, {
    ...DEFAULT_RETRY,
    onRetry: () => metrics.apiRetries.inc(),
  });
  const g: Gate = gate({ ratePerSecond: config.rateLimitPerSecond, burst: config.rateBurst }, Date.now());
  const sends = newOutbox(log);
  const heldJobs = watchedJobs();
  const lease = countersLease(rest, config.namespace, log, (held) => {
    metrics.countersWriter.set(held ? 1 : 0);
    deps.counts.held(held);
  });
  const deps = engine({ config, log, store, metrics, gate: g, outbox: sends, heldJobs, leader: lease.held });
  const sync = syncOf(deps, g, metrics);
  const ownJob = ownJobs(deps, g, log);
  const watches = openWatches(conn, config.namespace, { heldJobs, deps, sync, ownJob }, log);
  const server = config.metricsPort > 0 ? startMetricsServer(config.metricsPort, metrics, store, log) : undefined;

  async function handle({ request: req, eventId, delivery }: Input): Promise<Reply> {
    const started = performance.now();
    const path = req.kind === 'run' ? '/run' : '/';
    // Only new work meets the token bucket; progress is bounded by containerConcurrency (lane.ts).
    const admitted = laneOf(req) === 'new-work' ? g.admit(Date.now()) : ({ ok: true } as const);
    let reply: Reply;
    if (!admitted.ok) {
      metrics.rateLimited.inc();
      reply = rateLimited(admitted.retryAfterSeconds);
    } else if (g.draining() && req.kind === 'run') {
      reply = replyTo(unavailable('shutting down: send the run request again'));
    } else {
      reply = replyTo(await g.track(() => handleRequest(deps, req, eventId)));
    }
    metrics.request(path, reply.statusCode, (performance.now() - started) / 1000);
    return delivery ? toDelivery(reply) : reply;
  }

  return {
    handle,
    draining: g.draining,
    async shutdown(graceMs) {
      const graceEnds = Date.now() + graceMs;
      const left = await g.drain(graceMs);
      log.info(
        { left },
        left === 0 ? 'drained: every request in flight finished' : 'grace period over with requests in flight',
      );
      // Run-end events being sent get the rest of the grace period; what is
      // not sent by then stays owed in its run's status, for the janitor.
      const owed = await sends.drain(Math.max(0, graceEnds - Date.now()));
      log.info(
        { owed },
        owed === 0
          ? 'drained: every run-end event being sent was sent'
          : 'run-end events still owed at exit: left to the janitor',
      );
      server?.close();
      watches.stop();
      // The Lease is given up in what is left, too; not given up by then, it
      // runs out on its own and another replica takes it, as after a crash.
      await lease.stop(graceEnds - Date.now());
    },
  };
}
