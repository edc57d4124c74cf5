// The runs this process wrote last, as hints for the next decision on them: a
// finished Job's event or a module result then decides from the run as this
// process left it instead of reading it again. A hint, never the truth: the
// status write that follows carries the hint's resourceVersion, so a copy
// another writer made stale (another replica, the janitor, kubectl) is
// refused with a conflict, dropped, and the run read again (reconcile.ts).
// Bounded, oldest out first. A run that ended stays until it is pushed out:
// its last Job's Complete event still deletes that Job (cleanup.ts).
// The function's watch of the runs offers later copies of the runs held, so
// a run another replica moved is decided from its write, not refused with a
// 409. A copy never replaces a later one.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { isLater } from '../../kube/resource-version.ts';

export interface RunCache {
  get(name: string): CascadeRun | undefined;
  /** The run as this process just wrote or read it; a later copy held stays. */
  put(run: CascadeRun): void;
  /** A change the process's watch of the runs showed: a later copy of a run held replaces it; a deleted run goes. */
  offer(change: 'ADDED' | 'MODIFIED' | 'DELETED', run: CascadeRun): void;
  drop(name: string): void;
  size(): number;
}

export function runCache(limit = 512): RunCache {
  const runs = new Map<string, CascadeRun>();
  const older = (run: CascadeRun) =>
    isLater(runs.get(run.metadata.name)?.metadata.resourceVersion, run.metadata.resourceVersion);
  return {
    get: (name) => runs.get(name),
    put(run) {
      if (older(run)) return;
      const name = run.metadata.name;
      runs.delete(name);
      runs.set(name, run);
      if (runs.size > limit) runs.delete(runs.keys().next().value!);
    },
    offer(change, run) {
      const held = runs.get(run.metadata.name);
      if (!held) return;
      if (change === 'DELETED') {
        if (held.metadata.uid === run.metadata.uid) runs.delete(run.metadata.name);
      } else if (isLater(run.metadata.resourceVersion, held.metadata.resourceVersion)) runs.set(run.metadata.name, run);
    },
    drop: (name) => void runs.delete(name),
    size: () => runs.size,
  };
}

/** The janitor's: holds nothing, so every event reads its run. */
export const NO_RUN_CACHE: RunCache = {
  get: () => undefined,
  put: () => {},
  offer: () => {},
  drop: () => {},
  size: () => 0,
};
