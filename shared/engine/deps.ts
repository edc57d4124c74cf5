// What the engine is given at start-up (docs/architecture.md#no-module-singletons).
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../kube/store.ts';
import type { IgnoredJob } from '../core/job-identity.ts';
import type { Transition } from '../core/types.ts';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import type { RunEndEvent } from '../api/events.ts';
import type { CounterChange } from '../core/counters.ts';
import type { Outbox } from './outbox.ts';
import type { FinishedJobs } from './finished-jobs.ts';
import type { RunQueue } from './run-queue.ts';
import type { RetryWakeups } from './retry-wake.ts';
import type { RunCache } from './run-cache.ts';
import type { Starts } from './start-created.ts';
import type { DeletedJobs } from './deleted-jobs.ts';

export interface EngineHooks {
  /** The transitions of one decision, once it is written (metrics count each, one Kubernetes Event tells them all). */
  transitions?: (transitions: Transition[], run: CascadeRun) => void;
  /** Each conflict that made the engine reload and decide again. */
  conflict?: () => void;
  /** A Job observed for a run that did not count for its step (job-identity.ts, confirm-jobs.ts): one call each. */
  ignoredJob?: (job: IgnoredJob) => void;
  /** Runs of `scenario` a counter write moved from its queue to a slot: to be started now (admission.ts wakePromoted). */
  promoted?: (scenario: string, runs: string[]) => void;
}

export interface EngineDeps {
  config: Config;
  store: Store;
  log: Logger;
  now: () => Date;
  /** Sends a run-end CloudEvent to K_SINK (retried); true once the sink took it, false (logged) when it did not. */
  notify: (event: RunEndEvent, signal?: AbortSignal) => Promise<boolean>;
  /** Where the function sends run-end events after its reply (outbox.ts); sent before returning without it (the janitor). */
  outbox?: Outbox;
  hooks?: EngineHooks;
  /** Group commit of CascadeAutoOperator counter changes, one per scenario (counter-batcher.ts); written one by one without it. */
  counter?: (
    change: CounterChange,
    scenario: string,
    seen?: CascadeAutoOperator,
  ) => Promise<CascadeAutoOperator | undefined>;
  /** One reconcile at a time per run in this process, looks-again shared (run-queue.ts); unordered without it. */
  queue?: RunQueue;
  /** Each finished Job's events read its run once in this process (finished-jobs.ts); every such event reads it without it. */
  finishedJobs?: FinishedJobs;
  /** The scenario source this process last warned about (start-run.ts): one warning per change, not per run; every run warns without it. */
  scenarioSource?: { last?: string | undefined };
  /** The runs this process wrote last, as hints for finished Jobs' events and module results (run-cache.ts); every such event reads its run without it. */
  runs?: RunCache;
  /** Timers that look at a run again when its retry is due (retry-wake.ts); without them (the janitor) the next sweep does. */
  wakeups?: RetryWakeups;
  /**
   * Work that goes on after the reply, counted as in flight (the function's gate).
   * With it, a run request is answered once its run exists (start-created.ts);
   * without it (the janitor, in-process tests), once its first Job exists.
   */
  background?: (work: Promise<unknown>) => void;
  /** The Jobs this process deleted: their later events are answered without a call (deleted-jobs.ts). */
  deletedJobs?: DeletedJobs;
  /** The starts this process runs after its replies (start-created.ts). */
  starts?: Starts;
}
