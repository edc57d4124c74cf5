// The runs this process wrote last, as hints for the next decision on them: a
// finished Job's event or a module result then decides from the run as this
// process left it instead of reading it again. A hint, never the truth: the
// status write that follows carries the hint's resourceVersion, so a copy
// another writer made stale (another replica, the janitor, kubectl) is
// refused with a conflict, dropped, and the run read again (reconcile.ts).
// Bounded, oldest out first. A run that ended stays until it is pushed out:
// its last Job's Complete event still deletes that Job (cleanup.ts).
import type { CascadeRun } from '../../api/cascade-run.ts';

export interface RunCache {
  get(name: string): CascadeRun | undefined;
  /** The run as this process just wrote it. */
  put(run: CascadeRun): void;
  drop(name: string): void;
  size(): number;
}

export function runCache(limit = 512): RunCache {
  const runs = new Map<string, CascadeRun>();
  return {
    get: (name) => runs.get(name),
    put(run) {
      const name = run.metadata.name;
      runs.delete(name);
      runs.set(name, run);
      if (runs.size > limit) runs.delete(runs.keys().next().value!);
    },
    drop: (name) => void runs.delete(name),
    size: () => runs.size,
  };
}

/** The janitor's: holds nothing, so every event reads its run. */
export const NO_RUN_CACHE: RunCache = { get: () => undefined, put: () => {}, drop: () => {}, size: () => 0 };
