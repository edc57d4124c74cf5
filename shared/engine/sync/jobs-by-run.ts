// Cascade's Jobs by run, as the function's watch of Jobs lists and watches
// them (kube/watches.ts): what the core sees of each (observeJob), never the
// whole object. The first sync decides each listed run from it, with no list
// of its own (first-sync.ts). It only picks the runs to look at: the look
// itself reads the run and lists its Jobs again (run/reconcile.ts).
import { observeJob, type JobObject, type ObservedJob } from '../../core/observed-job.ts';

export interface JobsByRun {
  /** One change the watch showed. */
  see(change: 'ADDED' | 'MODIFIED' | 'DELETED', job: JobObject): void;
  /** The Jobs of run `run` the watch shows now. */
  of(run: string): ObservedJob[];
}

export function jobsByRun(): JobsByRun {
  const runs = new Map<string, Map<string, ObservedJob>>();
  return {
    see(change, job) {
      const seen = observeJob(job);
      if (!seen) return;
      const jobs = runs.get(seen.run) ?? new Map<string, ObservedJob>();
      const held = jobs.get(seen.name);
      if (change !== 'DELETED') jobs.set(seen.name, seen);
      // A DELETED change of an older Job of the same name leaves the newer one.
      else if (!held?.uid || held.uid === seen.uid) jobs.delete(seen.name);
      if (jobs.size > 0) runs.set(seen.run, jobs);
      else runs.delete(seen.run);
    },
    of: (run) => [...(runs.get(run)?.values() ?? [])],
  };
}

/** The janitor's: it watches no Jobs. */
export const NO_RUN_JOBS: JobsByRun = { see: () => {}, of: () => [] };
