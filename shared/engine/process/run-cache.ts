// The runs this process wrote last, as hints for the next decision on them: a
// finished Job's event or a module result then decides from the run as this
// process left it instead of reading it again. A hint, never the truth: the
// status write that follows carries the hint's resourceVersion, so a copy
// another writer made stale (another replica, the janitor, kubectl) is
// refused with a conflict, dropped, and the run read again (reconcile.ts).
// Bounded, oldest out first. A run that ended stays until it is pushed out:
// its last Job's Complete event still deletes that Job (cleanup.ts).
// The function's watch of the runs offers each change. A later copy replaces
// a run held, so a run another replica moved is decided from its write, not
// refused with a 409. A run not held is taken while it runs: a replica that
// never wrote it decides its next event without a read. A copy never
// replaces a later one.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { isLater } from '../../kube/resource-version.ts';
import { isTerminalPhase } from '../../api/run-status.ts';

export interface RunCache {
  get(name: string): CascadeRun | undefined;
  /** The run as this process just wrote or read it; a later copy held stays. */
  put(run: CascadeRun): void;
  /** A change the process's watch of the runs showed: a later copy replaces a run held, a running run not held is taken, a deleted run goes. */
  offer(change: 'ADDED' | 'MODIFIED' | 'DELETED', run: CascadeRun): void;
  drop(name: string): void;
  size(): number;
}

/** A run the watch shows that a process not holding it takes: one running, not one that ended or is not started. */
const running = (run: CascadeRun) => run.status?.phase !== undefined && !isTerminalPhase(run.status.phase);

/**
 * Runs held at most. Each pod of the scale bench holds every run in flight:
 * at 1,000 at once, 512 pushed out runs still running, and each event of
 * those read its run again. A 3-module run's copy is 4 KB of JSON, about
 * 6.5 KB of heap: 27 MB at most.
 */
export const RUNS_HELD = 4096;

export function runCache(limit = RUNS_HELD): RunCache {
  const runs = new Map<string, CascadeRun>();
  const put = (run: CascadeRun) => {
    const name = run.metadata.name;
    if (isLater(runs.get(name)?.metadata.resourceVersion, run.metadata.resourceVersion)) return;
    runs.delete(name);
    runs.set(name, run);
    if (runs.size > limit) runs.delete(runs.keys().next().value!);
  };
  return {
    get: (name) => runs.get(name),
    put,
    offer(change, run) {
      const held = runs.get(run.metadata.name);
      if (change === 'DELETED') {
        if (held && held.metadata.uid === run.metadata.uid) runs.delete(run.metadata.name);
      } else if (held ? isLater(run.metadata.resourceVersion, held.metadata.resourceVersion) : running(run)) put(run);
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
