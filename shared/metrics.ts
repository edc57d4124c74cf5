// Cascade's Prometheus metrics: the Go controller's names, labels and buckets
// (dashboards keep working) plus Cascade's own. One registry, made at start-up
// and passed down: docs/architecture.md#no-module-singletons. Label values
// come from closed vocabularies or from the run request's oname/sname as in
// the Go controller, never run names or ids.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { IGNORED_REASONS } from './core/job-identity.ts';
import type { Transition, TransitionKind } from './core/types.ts';

export const SCENARIO_BUCKETS = [1, 5, 20, 60, 100, 180];
const TRANSITIONS: TransitionKind[] = [
  'ModuleStarted',
  'ModuleSucceeded',
  'ModuleFailed',
  'ModuleCancelled',
  'RunSucceeded',
  'RunFailed',
  'RunCancelled',
  'ModuleRetrying',
  'RunResumed',
];
/** What the first sync does with a run whose next move is due (engine/sync/sync-plan.ts). */
const SYNC_MOVES = ['start', 'admission', 'look', 'wake'] as const;
const MODULE_ENDS: Partial<Record<TransitionKind, string>> = {
  ModuleSucceeded: 'succeeded',
  ModuleFailed: 'failed',
  ModuleCancelled: 'cancelled',
};

export interface RunLabels {
  ob?: string | undefined;
  src?: string | undefined;
  /** The run's scenario (spec.scenarioname); the function's SCENARIO_NAME when absent. */
  scenarioname?: string | undefined;
}

/** The Go controller's HTTP families, by path. */
function httpMetrics(registers: Registry[]) {
  return {
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'Total HTTP requests by path',
      labelNames: ['path'],
      registers,
    }),
    responseStatus: new Counter({
      name: 'response_status',
      help: 'HTTP response status codes',
      labelNames: ['status', 'path'],
      registers,
    }),
    httpTime: new Histogram({
      name: 'http_response_time_seconds',
      help: 'HTTP request duration',
      labelNames: ['path'],
      registers,
    }),
  };
}

/** The families of scenario executions and their jobs, by scenario, oname and sname. */
function scenarioMetrics(registers: Registry[]) {
  const labelNames = ['scenarioName', 'OName', 'SName'] as const;
  return {
    succeeded: new Counter({
      name: 'success_scenario_total',
      help: 'Successful scenario executions',
      labelNames,
      registers,
    }),
    failed: new Counter({ name: 'failed_scenario_total', help: 'Failed scenario executions', labelNames, registers }),
    cancelled: new Counter({
      name: 'cascade_cancelled_scenario_total',
      help: 'Cancelled scenario executions',
      labelNames,
      registers,
    }),
    current: new Gauge({
      name: 'scenario_current_runs',
      help: 'Currently running scenarios (from the CascadeRuns in the API server)',
      labelNames,
      registers,
    }),
    scenarioTime: new Histogram({
      name: 'scenarion_execution_time_seconds',
      help: 'Full scenario execution duration',
      labelNames,
      buckets: SCENARIO_BUCKETS,
      registers,
    }),
    jobTime: new Histogram({
      name: 'job_execution_time_seconds',
      help: 'Per-job execution duration',
      labelNames: ['scenarioName', 'moduleName', 'OName', 'SName', 'status'],
      buckets: SCENARIO_BUCKETS,
      registers,
    }),
  };
}

/** Cascade's own families besides the cancelled runs; the labelled counters start at 0 for every value. */
function cascadeOwnMetrics(registers: Registry[]) {
  const m = {
    transitions: new Counter({
      name: 'cascade_transitions_total',
      help: 'Run and module transitions written by this process',
      labelNames: ['kind'],
      registers,
    }),
    apiRetries: new Counter({
      name: 'cascade_api_retries_total',
      help: 'Kubernetes API calls retried after a transient error',
      registers,
    }),
    conflicts: new Counter({
      name: 'cascade_status_conflicts_total',
      help: 'Status writes that lost an optimistic-concurrency race and were decided again',
      registers,
    }),
    rateLimited: new Counter({
      name: 'cascade_rate_limited_total',
      help: 'Requests answered 429 by the token bucket',
      registers,
    }),
    ignoredJobs: new Counter({
      name: 'cascade_ignored_jobs_total',
      help: 'Jobs seen for a run that did not count for their step, by reason',
      labelNames: ['reason'],
      registers,
    }),
    confirmations: new Counter({
      name: 'cascade_job_confirmations_total',
      help: "Job events' claims confirmed before they moved a run: from the function's watch of its Jobs, or by a read",
      labelNames: ['from'],
      registers,
    }),
    countersWriter: new Gauge({
      name: 'cascade_counters_writer',
      help: "1 while this process holds the Lease whose holder writes the CascadeAutoOperators' counters, else 0",
      registers,
    }),
    queued: new Gauge({
      name: 'cascade_queued_runs',
      help: 'Runs waiting for a slot of their scenario (phase Queued, from the CascadeRuns in the API server)',
      labelNames: ['scenario'],
      registers,
    }),
  };
  for (const kind of TRANSITIONS) m.transitions.labels({ kind }).inc(0);
  for (const reason of IGNORED_REASONS) m.ignoredJobs.labels({ reason }).inc(0);
  for (const from of ['watch', 'read']) m.confirmations.labels({ from }).inc(0);
  return m;
}

/** The first sync's families (engine/sync/first-sync.ts). */
function syncMetrics(registers: Registry[]) {
  const m = {
    syncPasses: new Counter({
      name: 'cascade_sync_passes_total',
      help: 'Passes of the first sync done: one once the watches of runs and Jobs have listed, one after each list again',
      registers,
    }),
    syncMoves: new Counter({
      name: 'cascade_sync_moves_total',
      help: 'Runs the first sync moved because their next move was due, by move',
      labelNames: ['move'],
      registers,
    }),
  };
  for (const move of SYNC_MOVES) m.syncMoves.labels({ move }).inc(0);
  return m;
}

export function cascadeMetrics(scenarioName: string, registry = new Registry()) {
  const registers = [registry];
  const m = {
    registry,
    ...httpMetrics(registers),
    ...scenarioMetrics(registers),
    ...cascadeOwnMetrics(registers),
    ...syncMetrics(registers),
  };
  const scenarioOf = (run: RunLabels) => run.scenarioname || scenarioName;
  const labels = (run: RunLabels) => ({ scenarioName: scenarioOf(run), OName: run.ob ?? '', SName: run.src ?? '' });
  return {
    ...m,
    transition(t: Transition, run: RunLabels): void {
      m.transitions.labels({ kind: t.kind }).inc();
      const seconds = t.durationSeconds ?? 0;
      const status = MODULE_ENDS[t.kind];
      if (status) m.jobTime.labels({ ...labels(run), moduleName: t.module ?? '', status }).observe(seconds);
      // A cancelled run is counted, not timed: the Go controller's histogram times executions that ran to their end.
      if (t.kind === 'RunCancelled') m.cancelled.labels(labels(run)).inc();
      if (t.kind === 'RunSucceeded' || t.kind === 'RunFailed') {
        (t.kind === 'RunSucceeded' ? m.succeeded : m.failed).labels(labels(run)).inc();
        m.scenarioTime.labels(labels(run)).observe(seconds);
      }
    },
    request(path: '/run' | '/', status: number, seconds: number): void {
      m.httpRequests.labels({ path }).inc();
      m.responseStatus.labels({ status: String(status), path }).inc();
      m.httpTime.labels({ path }).observe(seconds);
    },
    /** Sets scenario_current_runs from the runs that are not finished, by oname/sname. */
    setCurrent(active: RunLabels[]): void {
      m.current.reset();
      for (const run of active) m.current.labels(labels(run)).inc();
    },
    /** Sets cascade_queued_runs from the runs waiting in their scenario's queue; SCENARIO_NAME shows 0 when none wait. */
    setQueued(queued: RunLabels[]): void {
      m.queued.reset();
      m.queued.labels({ scenario: scenarioName }).set(0);
      for (const run of queued) m.queued.labels({ scenario: scenarioOf(run) }).inc();
    },
  };
}

export type CascadeMetrics = ReturnType<typeof cascadeMetrics>;
