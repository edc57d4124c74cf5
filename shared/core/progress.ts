// Moving a run forward from what is observed: adopt Jobs that prove earlier
// steps done, finish steps whose Jobs finished, start the next step's Job (of
// its current attempt, once any retry backoff is over). Pure.
import type { ConditionReason, ModuleRecord } from '../api/cascade-run.ts';
import { attemptOf, isWaiting } from './attempts.ts';
import { buildJob } from './job-manifest.ts';
import type { ObservedJob } from './observed-job.ts';
import { completeStep, failStep, isTerminal, jobOf, markRunning, seconds, succeedRun, type Draft } from './draft.ts';
import { failOrRetry } from './step-retry.ts';

/**
 * A Job exists for step k only after some decision saw every step before k
 * succeed; when status lost that (a crash before the status write, a result
 * that was never delivered again), the Job proves it.
 */
export function adoptLaterJobs(d: Draft): void {
  if (isTerminal(d)) return;
  const steps = d.input.jobs.filter((j) => j.run === d.run.name && j.step < d.records.length).map((j) => j.step);
  const last = Math.max(-1, ...steps);
  for (const rec of d.records.slice(0, Math.max(0, last))) {
    if (rec.phase !== 'Succeeded') completeStep(d, rec.step, undefined);
  }
}

/**
 * A step started this long ago whose Job no event showed and no status
 * recorded may have lost its Job to a crash: an event of its run then asks for
 * a list. Sooner, its Job is on its way. The Complete event of the step before
 * comes a few milliseconds after the step started, and asks for nothing.
 */
export const UNSEEN_JOB_AFTER_SECONDS = 2;

/** The step started UNSEEN_JOB_AFTER_SECONDS or more before `now`. */
function startedLongAgo(rec: ModuleRecord, now: string): boolean {
  return (seconds(rec.startTime, now) ?? 0) >= UNSEEN_JOB_AFTER_SECONDS;
}

function jobFailureReason(reason: string | undefined): ConditionReason {
  return reason === 'DeadlineExceeded' ? 'DeadlineExceeded' : 'ModuleFailed';
}

/** A pending step starts: its Job is created (or found), unless the API server refused that Job; false when the step failed or may not start. */
function start(d: Draft, rec: ModuleRecord, job: ObservedJob | undefined, startNext: boolean): boolean {
  const { refused } = d.input;
  if (!job && !startNext) return false;
  if (!job && refused?.step === rec.step) {
    failStep(d, rec.step, 'JobCreationFailed', `the API server refused the Job: ${refused.message}`);
    return false;
  }
  if (!job)
    d.actions.push({
      type: 'CreateJob',
      step: rec.step,
      job: buildJob(d.input.settings, d.run, rec.step, attemptOf(rec)),
    });
  markRunning(d, rec.step, job?.startTime ?? d.input.now);
  delete rec.retryAt;
  return true;
}

/** The step's attempt failed: true when a retry is due at once (no backoff), so the run moves on to it. */
function attemptFailed(d: Draft, rec: ModuleRecord, reason: ConditionReason, message: string): boolean {
  failOrRetry(d, rec.step, reason, message);
  return !isTerminal(d) && rec.phase === 'Pending' && !isWaiting(rec, d.input.now);
}

/**
 * The step's Job as observed: undefined when none was seen, or when the one
 * seen is gone before it finished (`vanished`); a gone Job that finished still
 * tells how its step ended. A Job seen whose uid is not recorded yet (it
 * existed when its step started) gets it recorded.
 */
function stepJob(d: Draft, step: number): { job: ObservedJob | undefined; vanished: boolean } {
  const seen = jobOf(d, step);
  const vanished = Boolean(seen?.gone) && seen?.state === 'Active';
  const rec = d.records[step];
  if (rec && seen?.uid && !vanished) rec.jobUid ??= seen.uid;
  return { job: vanished ? undefined : seen, vanished };
}

/**
 * A started step with no Job to look at. The API server refused its Job: the
 * step fails. It waits while its Job is unknown or being created. With no uid
 * recorded and the step started a while ago, a wait on an event that showed
 * one of the run's Jobs asks for a list of them (unseenJob). No uid is
 * recorded and every Job is listed: the step's status was written and its Job
 * never made (its decider died in between), so the Job is asked for again,
 * behind a status write. Else the Job is gone (JobMissing).
 */
function noJob(d: Draft, rec: ModuleRecord, vanished: boolean): boolean {
  const { refused } = d.input;
  if (refused?.step === rec.step) {
    failStep(d, rec.step, 'JobCreationFailed', `the API server refused the Job: ${refused.message}`);
    return false;
  }
  if (d.actions.some((a) => a.type === 'CreateJob' && a.step === rec.step)) return false;
  if (d.input.partialJobs && !vanished) {
    // Only an event that showed one of the run's own Jobs asks: a forged name costs no list.
    if (rec.jobUid === undefined && d.input.jobs.length > 0 && startedLongAgo(rec, d.input.now)) d.unseenJob = rec.step;
    return false;
  }
  if (rec.jobUid === undefined && !vanished) {
    d.actions.push({
      type: 'CreateJob',
      step: rec.step,
      job: buildJob(d.input.settings, d.run, rec.step, attemptOf(rec)),
    });
    return false;
  }
  return attemptFailed(d, rec, 'JobMissing', `Job ${rec.jobName} is gone before it finished`);
}

/** One look at the first unfinished step; true when the run moved on to another step. */
function advanceOnce(d: Draft, startNext: boolean): boolean {
  const rec = d.records.find((r) => r.phase !== 'Succeeded');
  if (!rec) {
    succeedRun(d);
    return false;
  }
  const { job, vanished } = stepJob(d, rec.step);
  if (isWaiting(rec, d.input.now)) return false;
  if (rec.phase === 'Pending' && !start(d, rec, job, startNext)) return false;
  if (!job) return noJob(d, rec, vanished);
  if (job.state === 'Failed') {
    return attemptFailed(
      d,
      rec,
      jobFailureReason(job.reason),
      job.message ?? `Job ${job.name} failed (${job.reason ?? 'no reason'})`,
    );
  }
  if (job.state !== 'Succeeded') return false;
  completeStep(d, rec.step, job.completionTime);
  return true;
}

/** `startNext` false takes in what the Jobs say and starts no new Job (a cancel settles the run first: cancel.ts). */
export function advance(d: Draft, startNext = true): void {
  while (!isTerminal(d) && advanceOnce(d, startNext)) {
    // each pass finishes one step whose Job is seen complete
  }
}
