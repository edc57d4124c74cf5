// A finished Job that another process made is moved by that process, from
// its own watch (own-jobs.ts, ADR 0007). Its event, delivered here, would
// race that move: the status write of one of them is refused with a 409,
// then the run is read and its Jobs listed again. So the event waits, up to
// a grace, until this process's watches show the run as its maker left it,
// the Job's end taken in: a decision from that copy moves nothing. It is then
// answered with no API call. When the grace runs out (its maker is gone), it
// moves the run as before. The decision is made from the watch's copies of
// the Jobs, never from the event's claim: a claim only makes it wait.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { isTerminalPhase } from '../../api/run-status.ts';
import { decide } from '../../core/decide.ts';
import type { ObservedJob } from '../../core/observed-job.ts';
import type { DecideSettings } from '../../core/types.ts';
import { moves } from './sync-plan.ts';

/**
 * How long a finished Job's event waits for the move of the process that
 * made the Job. On 2 cores at 100 and 500 runs at once, that move came about
 * 0.8 s after the Job finished (bench/README.md#runs-at-once-on-several-function-pods).
 */
export const MAKER_GRACE_MS = 2000;

/** What this process's watches show of a run: its copy, and its Jobs. */
export interface WatchView {
  run(name: string): CascadeRun | undefined;
  jobs(run: string): readonly ObservedJob[];
  /** Resolves at the next change of the run or of one of its Jobs, or after `ms`. */
  next(run: string, ms: number): Promise<void>;
}

/**
 * The watch shows the event's Job, of its uid, as far along as the event
 * does: finished so, and done if it is. Or it shows the Job gone, its run
 * ended: the process that ended the run deletes its Jobs.
 */
function shows(run: CascadeRun, seen: readonly ObservedJob[], job: ObservedJob): boolean {
  const copy = seen.find((j) => j.name === job.name && j.uid === job.uid);
  if (!copy) return isTerminalPhase(run.status?.phase);
  return copy.state === job.state && (copy.done === true || !job.done);
}

/**
 * Whether `run` has taken in finished `job` as the process that made it
 * would. The watch of Jobs shows the Job as the event does. A decision from the run
 * and those Jobs moves nothing, a running Job's uid aside (sync-plan.ts), and
 * asks for no list of the run's Jobs. Pure.
 */
export function takenIn(
  run: CascadeRun,
  seen: readonly ObservedJob[],
  job: ObservedJob,
  at: { now: string; settings: DecideSettings },
): boolean {
  if (!shows(run, seen, job)) return false;
  const decision = decide({ run, jobs: seen, fact: { kind: 'Observe' }, ...at, partialJobs: true });
  return !moves(run, decision) && decision.unseenJob === undefined;
}

export interface MadeElsewhere {
  /** The run once its maker took finished `job` in, within `graceMs`; else undefined. */
  (job: ObservedJob, graceMs: number): Promise<CascadeRun | undefined>;
}

export function madeElsewhere(
  view: WatchView,
  now: () => Date,
  settings: (run: CascadeRun) => DecideSettings,
): MadeElsewhere {
  return async (job, graceMs) => {
    const until = Date.now() + graceMs;
    for (;;) {
      const run = view.run(job.run);
      if (run && takenIn(run, view.jobs(job.run), job, { now: now().toISOString(), settings: settings(run) }))
        return run;
      const left = until - Date.now();
      if (left <= 0) return undefined;
      await view.next(job.run, left);
    }
  };
}

/** The janitor's: it watches nothing, so every event moves its run. */
export const NOT_MADE_ELSEWHERE: MadeElsewhere = () => Promise.resolve(undefined);
