// Thrift within one process: Cascade's finished Jobs as the function's own
// watch of them shows them (kube/watch-stream.ts). A finished Job stays
// finished, so the watch's copy confirms an event's claim that a Job finished
// so, without a read of the Job (run/confirm-jobs.ts). The copy is the API
// server's, over the function's own connection: no event can put one here.
// A deleted Job is forgotten, so a claim about it is read, as without a watch.
// Bounded, oldest out first. Correctness never rests on it: a claim the watch
// has not shown yet is read from the API server.
import { observeJob, type JobObject, type JobState, type ObservedJob } from '../../core/observed-job.ts';

export interface HeldJobs {
  /** The watch's copy of Job `name` of `uid` when it shows that Job finished as `state`. */
  finished(name: string, uid: string, state: JobState): ObservedJob | undefined;
}

export interface WatchedJobs extends HeldJobs {
  /** One change the watch showed. */
  see(change: 'ADDED' | 'MODIFIED' | 'DELETED', job: JobObject): void;
}

export function watchedJobs(capacity = 10_000): WatchedJobs {
  const byUid = new Map<string, ObservedJob>();
  return {
    see(change, job) {
      const uid = job.metadata?.uid;
      if (!uid) return;
      byUid.delete(uid);
      const seen = change === 'DELETED' ? undefined : observeJob(job);
      if (!seen || seen.state === 'Active') return;
      byUid.set(uid, seen);
      if (byUid.size > capacity) byUid.delete(byUid.keys().next().value!);
    },
    finished(name, uid, state) {
      const held = byUid.get(uid);
      return held?.name === name && held.state === state ? held : undefined;
    },
  };
}

/** The janitor's, and a process without a watch: holds nothing, so every claim is read. */
export const NO_HELD_JOBS: HeldJobs = { finished: () => undefined };
