// What the engine is given at start-up (docs/architecture.md#no-module-singletons).
// Every member is there in every process. The function and the janitor differ
// only in the parts profiles.ts gives them: the janitor's are explicit no-ops.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../kube/store.ts';
import type { IgnoredJob } from '../core/job-identity.ts';
import type { Transition } from '../core/types.ts';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import type { RunEndEvent } from '../api/events.ts';
import type { SlotChange } from '../core/concurrency-limit.ts';
import type { Outbox } from './process/outbox.ts';
import type { FinishedJobs } from './process/finished-jobs.ts';
import type { RunLock } from './process/run-lock.ts';
import type { RetryWakeups } from './process/retry-timers.ts';
import type { RunCache } from './process/run-cache.ts';
import type { DeletedJobs } from './process/deleted-jobs.ts';
import type { Starts } from './process/starts.ts';
import type { HeldJobs } from './process/watched-jobs.ts';
import type { WatchChange } from '../kube/watch-stream.ts';
import type { MadeJobs } from './process/made-jobs.ts';
import type { JobObject } from '../core/observed-job.ts';
import type { JobsByRun } from './sync/jobs-by-run.ts';
import type { MadeElsewhere } from './sync/made-elsewhere.ts';

export interface EngineHooks {
  /** The transitions of one decision, once it is written. The function counts each and records one Kubernetes Event. */
  transitions: (transitions: Transition[], run: CascadeRun) => void;
  /** Each conflict that made the engine reload and decide again. */
  conflict: () => void;
  /** A Job observed for a run that did not count for its step (job-identity.ts, confirm-jobs.ts): one call each. */
  ignoredJob: (job: IgnoredJob) => void;
  /** Each Job event's claim confirmed before it moved a run: from the function's watch of its Jobs, or by a read. */
  confirmed: (from: 'watch' | 'read') => void;
  /** Runs of `scenario` a slot write moved from its queue to a slot: to be started now (admission.ts wakePromoted). */
  promoted: (scenario: string, runs: string[]) => void;
}

/** One change of a scenario's concurrency limit, resolved once it is written (operator/admission-writes.ts). */
export type SlotWriter = (
  change: SlotChange,
  scenario: string,
  seen?: CascadeAutoOperator,
) => Promise<CascadeAutoOperator | undefined>;

/** What every process has: the configuration, the API server, a logger, a clock and the run-end sender. */
export interface EngineBase {
  config: Config;
  store: Store;
  log: Logger;
  now: () => Date;
  /** Sends a run-end CloudEvent to K_SINK (retried); true once the sink took it, false (logged) when it did not. */
  notify: (event: RunEndEvent, signal?: AbortSignal) => Promise<boolean>;
}

/** What the function's watches of operators and runs feed. */
export interface Watched {
  operator: (change: WatchChange, op: CascadeAutoOperator) => void;
  run: (change: WatchChange, run: CascadeRun) => void;
  /** A change the watch of Jobs showed. */
  job: (change: WatchChange, job: JobObject) => void;
  /** Whether the watch of runs is open. */
  runsOpen: (open: boolean) => void;
}

/** The engine's parts. The function's are per-process machinery; the janitor's do each thing at once (profiles.ts). */
export interface EngineDeps extends EngineBase {
  hooks: EngineHooks;
  /** Where run-end events are sent: after the reply in the function, before returning in the janitor. */
  outbox: Outbox;
  /** The concurrency limit's changes: a group commit per scenario in the function, one write each in the janitor. */
  slots: SlotWriter;
  /** One reconcile at a time per run, looks-again shared, in the function; none in the janitor. */
  lock: RunLock;
  /** Each finished Job's events read its run once in the function; every time in the janitor. */
  finishedJobs: FinishedJobs;
  /** The scenario source this process last warned about: one warning per change, not per run. */
  scenarioSource: { last?: string | undefined };
  /** The runs this process wrote last, as hints for finished Jobs' events and module results; empty in the janitor. */
  runs: RunCache;
  /** Timers that look at a run again when its retry is due; none in the janitor, whose next sweep does. */
  wakeups: RetryWakeups;
  /**
   * Work that goes on after the reply, counted as in flight by the function's gate.
   * With it, a run request is answered once its run exists (start-created.ts).
   * The janitor has none: it answers no run request.
   */
  background: ((work: Promise<unknown>) => void) | undefined;
  /** The Jobs this process deleted: their later events are answered without a call. None in the janitor. */
  deletedJobs: DeletedJobs;
  /** The Jobs this process made: its watch moves their runs once they finish (sync/own-jobs.ts). None in the janitor. */
  madeJobs: MadeJobs;
  /** Finished Jobs as the function's watch of its Jobs shows them: they confirm claims without a read. None in the janitor. */
  heldJobs: HeldJobs;
  /** Each run's Jobs as the function's watch of Jobs shows them: the first sync decides from them. None in the janitor. */
  runJobs: JobsByRun;
  /** A finished Job another process made: its run once that process took it in (sync/made-elsewhere.ts). None in the janitor. */
  madeElsewhere: MadeElsewhere;
  /**
   * Where the function's watches of operators and runs send each change they show. They keep the operators' copies
   * and the runs this process holds fresh, and the counters written (operator/counts-writer.ts). No-ops in the janitor.
   */
  watched: Watched;
  /** The starts this process runs after its replies (start-created.ts). */
  starts: Starts;
}
