// Which observed Jobs are Cascade's own, by the run's record. Pure.
// A label can be copied onto any Job, and an event can carry any Job at all.
// So a Job counts for a step only when it bears the name Cascade gave that
// step's attempt. For the current attempt, once its uid is recorded, the uid
// must match too: a Job of the same name made later is another Job.
import type { ModuleRecord } from '../api/cascade-run.ts';
import type { ObservedJob } from './observed-job.ts';

/**
 * Why an observed Job is not taken: its name is not the one Cascade gave; its
 * uid is not the one recorded; or the API server contradicted the event's copy.
 */
export type IgnoredReason = 'unknown-name' | 'other-uid' | 'unconfirmed';
export const IGNORED_REASONS: readonly IgnoredReason[] = ['unknown-name', 'other-uid', 'unconfirmed'];

export interface IgnoredJob {
  name: string;
  step: number;
  reason: IgnoredReason;
}

/** The name Cascade gave attempt `attempt` of the step, if that attempt exists. */
function nameOfAttempt(rec: ModuleRecord, attempt: number): string | undefined {
  if (attempt === (rec.attempt ?? 1)) return rec.jobName;
  return rec.attempts?.find((a) => a.attempt === attempt)?.jobName;
}

function verdict(records: readonly ModuleRecord[], run: string, job: ObservedJob): IgnoredReason | undefined {
  const rec = records[job.step];
  const attempt = job.attempt ?? 1;
  if (job.run !== run || !rec || nameOfAttempt(rec, attempt) !== job.name) return 'unknown-name';
  // A copy without a uid passes on its name: an event's copy is confirmed before it moves anything,
  // and the copy made of the API server's 404 has none.
  const current = attempt === (rec.attempt ?? 1);
  if (current && rec.jobUid !== undefined && job.uid !== undefined && job.uid !== rec.jobUid) return 'other-uid';
  return undefined;
}

export interface SortedJobs {
  /** The Jobs Cascade created for the run: they move it. */
  own: ObservedJob[];
  /** Jobs with a name Cascade gave but another uid: they move nothing, and no step keeps them. */
  strays: ObservedJob[];
  /** Every Job not taken as its step's, strays included: for one log line and a metric each. */
  ignored: IgnoredJob[];
}

/** Sorts the observed Jobs by the run's records. */
export function sortJobs(records: readonly ModuleRecord[], run: string, jobs: readonly ObservedJob[]): SortedJobs {
  const sorted: SortedJobs = { own: [], strays: [], ignored: [] };
  for (const job of jobs) {
    const reason = verdict(records, run, job);
    if (reason === undefined) sorted.own.push(job);
    else sorted.ignored.push({ name: job.name, step: job.step, reason });
    if (reason === 'other-uid') sorted.strays.push(job);
  }
  return sorted;
}
