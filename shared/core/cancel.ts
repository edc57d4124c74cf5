// Cancelling a run: the step that runs (or would run next) stops, nothing
// later starts, the run ends `Cancelled`. Pure: the Jobs' deletion follows
// from the run's phase (cleanup.ts), the end's counting and event from
// run-end.ts, as for any other end.
import { setSucceeded } from './conditions.ts';
import { isTerminal, seconds, type Draft } from './draft.ts';
import { advance } from './progress.ts';

export type CancelVerdict = 'cancelled' | 'already-finished';

function cancelRun(d: Draft): void {
  const { now } = d.input;
  const total = d.records.length;
  // After settling, the steps before it succeeded: this one ran, or was next.
  const rec = d.records.find((r) => r.phase !== 'Succeeded');
  if (rec) {
    const started = rec.startTime !== undefined;
    rec.phase = 'Cancelled';
    if (started) rec.completionTime = now;
    rec.reason = 'Cancelled';
    rec.message = started ? 'cancelled while it ran' : 'cancelled before it started';
    d.status.currentStep = rec.step;
    d.status.currentModule = rec.name;
    d.transitions.push({
      kind: 'ModuleCancelled',
      step: rec.step,
      module: rec.name,
      reason: 'Cancelled',
      message: rec.message,
      durationSeconds: seconds(rec.startTime, now),
    });
  }
  const message = rec ? `cancelled at module ${rec.name} (step ${rec.step + 1} of ${total})` : 'cancelled';
  d.status.phase = 'Cancelled';
  d.status.info = 'Cancelled';
  d.status.completionTime = now;
  setSucceeded(d.status, { status: 'False', reason: 'Cancelled', message }, now);
  d.transitions.push({
    kind: 'RunCancelled',
    reason: 'Cancelled',
    message,
    durationSeconds: seconds(d.status.startTime, now),
  });
}

/**
 * A request to cancel. What the Jobs already say is taken in first, starting
 * nothing: a cancel that comes after the last step's Job completed (its event
 * not yet handled) finds the run succeeded, and changes nothing. A run that
 * ended is left as it is.
 */
export function applyCancel(d: Draft): CancelVerdict {
  advance(d, false);
  if (isTerminal(d)) return 'already-finished';
  cancelRun(d);
  return 'cancelled';
}
