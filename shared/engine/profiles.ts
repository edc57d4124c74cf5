// The two ways the engine runs, each built in one place. The function keeps
// per-process machinery between events: a lock and a cache per run, timers,
// an outbox, a group commit of the concurrency limit's writes, the counters'
// writer. The janitor does each thing at once
// and keeps nothing: its parts are the explicit no-ops below. Both decide
// the same way; only thrift and timing differ.
import type { CascadeRun } from '../api/cascade-run.ts';
import { LABEL_RUN } from '../names.ts';
import type { EngineBase, EngineDeps, EngineHooks, Watched } from './deps.ts';
import { deletedJobs, NO_DELETED_JOBS } from './process/deleted-jobs.ts';
import { madeJobs, NO_MADE_JOBS } from './process/made-jobs.ts';
import { NO_HELD_JOBS, type HeldJobs } from './process/watched-jobs.ts';
import { EVERY_TIME, finishedJobs } from './process/finished-jobs.ts';
import { batchedSlots, cacheOf, directSlots, offerWatched, type OperatorCaches } from './operator/admission-writes.ts';
import { countsWriter, type CountsWriter } from './operator/counts-writer.ts';
import { inlineOutbox, type Outbox } from './process/outbox.ts';
import { NO_WAKEUPS, retryTimers } from './process/retry-timers.ts';
import { NO_RUN_CACHE, runCache } from './process/run-cache.ts';
import { runLock, UNLOCKED } from './process/run-lock.ts';
import { starts } from './process/starts.ts';
import { runChanges } from './process/run-changes.ts';
import { decideSettings } from './run/decide-settings.ts';
import { jobsByRun, NO_RUN_JOBS } from './sync/jobs-by-run.ts';
import { madeElsewhere, NOT_MADE_ELSEWHERE } from './sync/made-elsewhere.ts';

/** The janitor watches nothing. */
const NOT_WATCHED: Watched = { operator: () => {}, run: () => {}, job: () => {}, runsOpen: () => {} };

/** Hooks that do nothing: the janitor has no metrics to count. */
export function noHooks(): EngineHooks {
  return {
    transitions: () => {},
    conflict: () => {},
    ignoredJob: () => {},
    confirmed: () => {},
    promoted: () => {},
  };
}

/** What the function's engine is given besides the base. */
export interface FunctionParts {
  hooks: EngineHooks;
  outbox: Outbox;
  background: (work: Promise<unknown>) => void;
  heldJobs?: HeldJobs;
  /** Whether this process holds the counters' Lease now (kube/lease.ts); none, it never writes the counters. */
  leader?: () => boolean;
}

/**
 * The function's engine. `hooks` count and record what it does; `outbox` sends run-end events after the reply;
 * `background` runs a run request's start after its reply. `heldJobs`: what the process's watch of its Jobs shows, if it has one.
 * `counts` is told when the Lease's hold begins or ends.
 */
export function functionEngine(base: EngineBase, parts: FunctionParts): EngineDeps & { counts: CountsWriter } {
  const { hooks, outbox, background, heldJobs = NO_HELD_JOBS, leader = () => false } = parts;
  const operators: OperatorCaches = new Map();
  const slots = batchedSlots({ ...base, hooks }, operators);
  const counts = countsWriter(base, operators, leader);
  const cache = runCache();
  const runJobs = jobsByRun();
  const changes = runChanges();
  const view = { run: cache.get, jobs: runJobs.of, next: changes.next };
  // The runs this process writes are told to the counters' writer too: a process without its watch still counts its own.
  const runs = {
    ...cache,
    put: (run: CascadeRun) => {
      cache.put(run);
      counts.run('MODIFIED', run);
    },
  };
  return {
    ...base,
    hooks,
    outbox,
    slots,
    counts,
    lock: runLock(),
    finishedJobs: finishedJobs(),
    scenarioSource: {},
    runs,
    wakeups: retryTimers(base.now, base.log),
    background,
    deletedJobs: deletedJobs(),
    madeJobs: madeJobs(),
    heldJobs,
    runJobs,
    madeElsewhere: madeElsewhere(view, base.now, (run) => decideSettings(base.config, run)),
    watched: {
      operator: (change, op) => {
        offerWatched(cacheOf(operators, op.metadata.name), change, op);
        if (change !== 'DELETED') counts.operator(op);
      },
      run: (change, run) => {
        cache.offer(change, run);
        counts.run(change, run);
        changes.seen(run.metadata.name);
      },
      job: (change, job) => {
        runJobs.see(change, job);
        const run = job.metadata?.labels?.[LABEL_RUN];
        if (run) changes.seen(run);
      },
      runsOpen: counts.runsOpen,
    },
    starts: starts(),
  };
}

/** The janitor's engine: every part does its work at once and keeps nothing. `hooks` default to none. */
export function janitorEngine(base: EngineBase, hooks: EngineHooks = noHooks()): EngineDeps {
  return {
    ...base,
    hooks,
    outbox: inlineOutbox(),
    slots: directSlots({ ...base, hooks }),
    lock: UNLOCKED,
    finishedJobs: EVERY_TIME,
    scenarioSource: {},
    runs: NO_RUN_CACHE,
    wakeups: NO_WAKEUPS,
    background: undefined,
    deletedJobs: NO_DELETED_JOBS,
    madeJobs: NO_MADE_JOBS,
    heldJobs: NO_HELD_JOBS,
    runJobs: NO_RUN_JOBS,
    madeElsewhere: NOT_MADE_ELSEWHERE,
    watched: NOT_WATCHED,
    starts: starts(),
  };
}
