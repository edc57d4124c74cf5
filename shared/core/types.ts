// The vocabulary of the pure core: what it is told, what it decides.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeRun, CascadeRunStatus, TerminalPhase } from '../api/cascade-run.ts';
import type { IgnoredJob } from './job-identity.ts';
import type { JobSettings } from './job-manifest.ts';
import type { ObservedJob } from './observed-job.ts';

/**
 * The new fact an event brings; `Observe` when it only asks to look again (a
 * Job changed, a sweep); `Cancel` a request to cancel the run (cancel.ts).
 */
export type Fact =
  | { kind: 'ModuleResult'; modulename: string; moduleresult: string }
  | { kind: 'Observe' }
  | { kind: 'Cancel' }
  /**
   * Resume a Failed (or Cancelled) run from its stopped step. `requestId`: the
   * request's id; `bodyDigest` instead for a plain body without one;
   * `annotation`: the kubectl way's value, recorded as handled.
   */
  | {
      kind: 'Resume';
      requestId?: string | undefined;
      bodyDigest?: string | undefined;
      annotation?: string | undefined;
    };

/** The API server refused a step's Job as invalid (a bad template in the scenario). */
export interface Refusal {
  step: number;
  message: string;
}

export interface DecideSettings extends JobSettings {
  /** 0 = never. */
  stallAfterSeconds: number;
  /** 0 = never. */
  runTimeoutSeconds: number;
  /** A K_SINK is set: a run that ends owes its run-end CloudEvent until it is sent. */
  sink: boolean;
}

export interface DecideInput {
  run: CascadeRun;
  jobs: readonly ObservedJob[];
  fact: Fact;
  /** RFC 3339 time of the decision. */
  now: string;
  settings: DecideSettings;
  /**
   * Deciding this fact again after the API server refused the Job it decided
   * to create: that step fails instead, and the rest of the decision (the
   * result recorded, the steps before it completed) stands.
   */
  refused?: Refusal | undefined;
  /**
   * A run not started yet (no phase, or Queued): whether its scenario's
   * concurrency limit gives it a slot (concurrency-limit.ts). Unset: a new run starts, a
   * Queued one keeps waiting.
   */
  admission?: 'admitted' | 'queued' | undefined;
  /**
   * `jobs` holds only the Jobs an event showed, not a list of the run's Jobs:
   * a step whose Job is not among them is unknown (its Job may exist), not gone.
   */
  partialJobs?: boolean;
}

/** One step's attempt. */
export interface JobAttempt {
  step: number;
  attempt: number;
}

export type Action =
  | { type: 'CreateJob'; step: number; job: V1Job }
  /** `uid`: only the Job of that uid is deleted; another Job of the same name is left alone. */
  | { type: 'DeleteJob'; name: string; step: number; uid?: string | undefined }
  /** The ended run's Jobs, by its label, but the Job of `keep` (a failed run's failed step and attempt). */
  | { type: 'DeleteRunJobs'; run: string; keep?: JobAttempt | undefined }
  /** Release the ended attempt's slot on the CascadeAutoOperator, then record it (`slotReleased`), and notified unless the event is owed. */
  | { type: 'FinishRun'; phase: TerminalPhase; eventOwed: boolean }
  /** Send the run-end CloudEvent (after any FinishRun, without holding the reply), then record it notified. */
  | { type: 'SendRunEndEvent'; phase: TerminalPhase }
  /** Give resume number `resumes` its slot on the CascadeAutoOperator, then record it (`resumeSlotTaken`). */
  | { type: 'TakeResumeSlot'; resumes: number };

export type TransitionKind =
  | 'ModuleStarted'
  | 'ModuleSucceeded'
  | 'ModuleFailed'
  | 'RunSucceeded'
  | 'RunFailed'
  | 'ModuleRetrying'
  | 'RunResumed'
  | 'ModuleCancelled'
  | 'RunCancelled';

export interface Transition {
  kind: TransitionKind;
  step?: number;
  module?: string;
  reason?: string;
  message: string;
  /** For finished modules and runs. */
  durationSeconds?: number;
}

/** What became of the fact: the reply of an entry point derives from it. */
export type Verdict =
  | 'applied'
  | 'recorded'
  | 'duplicate'
  | 'unknown-module'
  | 'not-started'
  | 'observed'
  | 'resumed'
  | 'not-resumable'
  /** A cancel request: the run was cancelled, or had ended already (nothing changed). */
  | 'cancelled'
  | 'already-finished';

export interface Decision {
  status: CascadeRunStatus;
  changed: boolean;
  actions: Action[];
  transitions: Transition[];
  verdict: Verdict;
  /** Observed Jobs that are not the ones Cascade created for their steps: never decided on. */
  ignoredJobs: IgnoredJob[];
  /**
   * A started step whose Job is not among the Jobs shown and whose uid no
   * status recorded (partialJobs): only a list of the run's Jobs tells whether
   * its decider died before creating it.
   */
  unseenJob?: number | undefined;
}
