// The two ways the engine runs, each built in one place. The function keeps
// per-process machinery between events: a lock and a cache per run, timers,
// an outbox, a group commit of counters. The janitor does each thing at once
// and keeps nothing: its parts are the explicit no-ops below. Both decide
// the same way; only thrift and timing differ.
import type { EngineBase, EngineDeps, EngineHooks, Watched } from './deps.ts';
import { deletedJobs, NO_DELETED_JOBS } from './process/deleted-jobs.ts';
import { NO_HELD_JOBS, type HeldJobs } from './process/watched-jobs.ts';
import { EVERY_TIME, finishedJobs } from './process/finished-jobs.ts';
import {
  batchedCounter,
  cacheOf,
  directCounter,
  offerWatched,
  type OperatorCaches,
} from './operator/operator-counters.ts';
import { counterHolder } from './operator/counter-holder.ts';
import { countForOthers } from './operator/count-for-others.ts';
import { inlineOutbox, type Outbox } from './process/outbox.ts';
import { NO_WAKEUPS, retryTimers } from './process/retry-timers.ts';
import { NO_RUN_CACHE, runCache } from './process/run-cache.ts';
import { runLock, UNLOCKED } from './process/run-lock.ts';

/** The janitor watches nothing. */
const NOT_WATCHED: Watched = { operator: () => {}, run: () => {}, runsOpen: () => {}, operatorsOpen: () => {} };

/** Hooks that do nothing: the janitor has no metrics to count. */
export function noHooks(): EngineHooks {
  return {
    transitions: () => {},
    conflict: () => {},
    ignoredJob: () => {},
    confirmed: () => {},
    countLeft: () => {},
    promoted: () => {},
  };
}

/**
 * The function's engine. `hooks` count and record what it does; `outbox` sends run-end events after the reply;
 * `background` runs a run request's start after its reply. `heldJobs`: what the process's watch of its Jobs shows, if it has one.
 */
export function functionEngine(
  base: EngineBase,
  parts: { hooks: EngineHooks; outbox: Outbox; background: (work: Promise<unknown>) => void; heldJobs?: HeldJobs },
): EngineDeps {
  const { hooks, outbox, background, heldJobs = NO_HELD_JOBS } = parts;
  const operators: OperatorCaches = new Map();
  const holder = counterHolder();
  const counter = batchedCounter({ ...base, hooks }, operators, holder);
  const runs = runCache();
  const forOthers = countForOthers({ ...base, counter }, holder);
  return {
    ...base,
    hooks,
    outbox,
    counter,
    lock: runLock(),
    finishedJobs: finishedJobs(),
    scenarioSource: {},
    runs,
    wakeups: retryTimers(base.now, base.log),
    background,
    deletedJobs: deletedJobs(),
    heldJobs,
    watched: {
      operator: (change, op) => {
        offerWatched(cacheOf(operators, op.metadata.name), change, op);
        holder.operatorSeen(change, op);
      },
      run: (change, run) => {
        runs.offer(change, run);
        forOthers.run(change, run);
      },
      runsOpen: holder.runsWatched,
      operatorsOpen: holder.operatorsWatched,
    },
    starts: new Map(),
  };
}

/** The janitor's engine: every part does its work at once and keeps nothing. `hooks` default to none. */
export function janitorEngine(base: EngineBase, hooks: EngineHooks = noHooks()): EngineDeps {
  return {
    ...base,
    hooks,
    outbox: inlineOutbox(),
    counter: directCounter({ ...base, hooks }),
    lock: UNLOCKED,
    finishedJobs: EVERY_TIME,
    scenarioSource: {},
    runs: NO_RUN_CACHE,
    wakeups: NO_WAKEUPS,
    background: undefined,
    deletedJobs: NO_DELETED_JOBS,
    heldJobs: NO_HELD_JOBS,
    watched: NOT_WATCHED,
    starts: new Map(),
  };
}
