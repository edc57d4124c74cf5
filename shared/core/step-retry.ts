// Cascade's retries of a failed step (scenario module `retry`). A step whose
// attempt failed for a cause a new Job may cure runs again as a new Job after
// an exponential backoff, up to the limit; past the limit the run fails. The
// wait is kept in the step's `retryAt`, in the run's status: no timer is
// needed for it to happen (whoever decides after that time starts the Job).
// Pure.
import type { ConditionReason, ModuleRecord } from '../api/cascade-run.ts';
import type { RetryPolicy } from '../api/scenario.ts';
import { setSucceeded } from './conditions.ts';
import { attemptOf, nextAttempt } from './attempts.ts';
import { failStep, seconds, type Draft } from './draft.ts';

export const DEFAULT_BACKOFF_SECONDS = 10;
export const DEFAULT_MAX_BACKOFF_SECONDS = 3600;

/** Failures of one attempt that a new Job may cure; a run's own deadline, a stall or a refused Job are not retried. */
const RETRIED: readonly ConditionReason[] = ['ModuleFailed', 'ModuleResultFailed', 'DeadlineExceeded', 'JobMissing'];

/** Wait before retry number `retry` (1-based): backoffSeconds * 2^(retry-1), at most maxBackoffSeconds. */
export function backoffSeconds(policy: RetryPolicy, retry: number): number {
  const base = policy.backoffSeconds ?? DEFAULT_BACKOFF_SECONDS;
  const max = policy.maxBackoffSeconds ?? DEFAULT_MAX_BACKOFF_SECONDS;
  return Math.min(max, base * 2 ** Math.max(0, retry - 1));
}

/** Retries already made since the step last started afresh (its first attempt, or a resume). */
export function retriesMade(rec: ModuleRecord): number {
  const triggers = [...(rec.attempts ?? []).map((a) => a.trigger), rec.trigger ?? 'Initial'];
  let n = 0;
  while (triggers.at(-1 - n) === 'Retry') n++;
  return n;
}

/** The retry the step would get after this failure (1-based), or undefined when none is left. */
export function retryLeft(
  policy: RetryPolicy | undefined,
  rec: ModuleRecord,
  reason: ConditionReason,
): number | undefined {
  if (!policy || !RETRIED.includes(reason)) return undefined;
  const next = retriesMade(rec) + 1;
  return next <= policy.limit ? next : undefined;
}

function addSeconds(at: string, s: number): string {
  return new Date(Date.parse(at) + s * 1000).toISOString();
}

/**
 * A step's attempt failed: a retry when its policy has one left (the step is
 * Pending again, due after the backoff, the run stays Running with reason
 * Retrying), else the step and the run fail.
 */
export function failOrRetry(d: Draft, step: number, reason: ConditionReason, message: string): void {
  const rec = d.records[step];
  const retry = rec && retryLeft(d.run.modules[step]?.retry, rec, reason);
  if (!rec || retry === undefined) return failStep(d, step, reason, message);
  const { now } = d.input;
  rec.phase = 'Failed';
  rec.completionTime ??= now;
  rec.reason = reason;
  rec.message = message;
  const durationSeconds = seconds(rec.startTime, rec.completionTime);
  d.transitions.push({ kind: 'ModuleFailed', step, module: rec.name, reason, message, durationSeconds });
  const wait = backoffSeconds(d.run.modules[step]!.retry!, retry);
  const failed = attemptOf(rec);
  nextAttempt(d, rec, 'Retry', addSeconds(now, wait));
  const text = `module ${rec.name} (step ${step + 1}) attempt ${failed} failed (${reason}): retry ${retry} as attempt ${failed + 1} in ${wait}s`;
  setSucceeded(d.status, { status: 'Unknown', reason: 'Retrying', message: text }, now);
  d.transitions.push({ kind: 'ModuleRetrying', step, module: rec.name, reason, message: text });
}
