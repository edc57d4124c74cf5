// A step's attempts: each is one Job. A new attempt (a retry after a failure,
// or a resume of a stopped run) archives the current one in the record's
// `attempts` and names a new Job, `<step's Job>-a<n>`. Pure.
import type { AttemptRecord, AttemptTrigger, ModuleRecord } from '../api/cascade-run.ts';
import { attemptJobName, jobName } from '../names.ts';
import type { Draft } from './draft.ts';

export function attemptOf(rec: ModuleRecord): number {
  return rec.attempt ?? 1;
}

function archived(rec: ModuleRecord): AttemptRecord {
  const a: AttemptRecord = {
    attempt: attemptOf(rec),
    jobName: rec.jobName,
    phase: rec.phase,
    trigger: rec.trigger ?? 'Initial',
  };
  if (rec.startTime) a.startTime = rec.startTime;
  if (rec.completionTime) a.completionTime = rec.completionTime;
  if (rec.result !== undefined) a.result = rec.result;
  if (rec.reason !== undefined) a.reason = rec.reason;
  if (rec.message !== undefined) a.message = rec.message;
  return a;
}

/**
 * The step's current attempt is over: it goes to `attempts`, and the step is
 * Pending again as attempt n+1, with its own Job name, due at `retryAt` (now
 * when absent).
 */
export function nextAttempt(d: Draft, rec: ModuleRecord, trigger: AttemptTrigger, retryAt?: string): void {
  const attempt = attemptOf(rec) + 1;
  const names = d.run.modules.map((m) => m.modulename);
  const stepJob = jobName(d.input.settings.scenarioName, d.run.name, names, rec.step);
  rec.attempts = [...(rec.attempts ?? []), archived(rec)];
  rec.attempt = attempt;
  rec.trigger = trigger;
  rec.jobName = attemptJobName(stepJob, attempt);
  rec.phase = 'Pending';
  for (const key of ['jobUid', 'startTime', 'completionTime', 'result', 'reason', 'message', 'retryAt'] as const)
    delete rec[key];
  if (retryAt) rec.retryAt = retryAt;
}

/** The step waits for its retry's backoff at `now`. */
export function isWaiting(rec: ModuleRecord, now: string): boolean {
  return rec.phase === 'Pending' && rec.retryAt !== undefined && Date.parse(rec.retryAt) > Date.parse(now);
}
