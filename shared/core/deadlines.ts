// A run past its deadline, or with no progress for too long, fails; the step
// that was running fails with it and keeps its Job for inspection. Pure: the
// time is the decision's `now`.
import type { ConditionReason } from '../api/cascade-run.ts';
import { failRun, failStep, isTerminal, seconds, type Draft } from './draft.ts';

function lastProgress(d: Draft): string | undefined {
  // A retry's due time and a resume count as progress: a wait for a backoff is not a stall.
  const times = [...d.records.flatMap((r) => [r.startTime, r.completionTime, r.retryAt]), d.status.resumedAt].filter(
    (t): t is string => Boolean(t),
  );
  return times.sort().at(-1) ?? d.status.startTime;
}

function fail(d: Draft, reason: ConditionReason, message: string): void {
  const running = d.records.find((r) => r.phase === 'Running');
  if (running) failStep(d, running.step, reason, message);
  else failRun(d, reason, message);
}

/** Checked before the run advances: a deadline holds whatever arrives late. */
export function enforceRunTimeout(d: Draft): void {
  const { now, settings } = d.input;
  if (isTerminal(d) || settings.runTimeoutSeconds <= 0) return;
  const age = seconds(d.status.resumedAt ?? d.status.startTime, now) ?? 0;
  if (age > settings.runTimeoutSeconds)
    fail(d, 'DeadlineExceeded', `run is older than its deadline of ${settings.runTimeoutSeconds}s`);
}

/** Checked after the run advanced: only a decision that moved nothing can find it stalled. */
export function enforceStall(d: Draft): void {
  const { now, settings } = d.input;
  if (isTerminal(d) || settings.stallAfterSeconds <= 0 || d.transitions.length > 0) return;
  const idle = seconds(lastProgress(d), now) ?? 0;
  if (idle > settings.stallAfterSeconds)
    fail(d, 'Stalled', `no progress for ${Math.round(idle)}s (limit ${settings.stallAfterSeconds}s)`);
}
