// Waits for the next change this process's watches show of a run: of the run
// itself or of one of its Jobs (sync/made-elsewhere.ts). Each waiter ends at
// that change or at its own timeout, whichever comes first.

export interface RunChanges {
  /** A change of `run`, or of one of its Jobs, was seen: every waiter for it goes on. */
  seen(run: string): void;
  /** Resolves at the next change of `run` seen, or after `ms`. */
  next(run: string, ms: number): Promise<void>;
}

export function runChanges(): RunChanges {
  const waiting = new Map<string, Set<() => void>>();
  return {
    seen(run) {
      const waiters = waiting.get(run);
      waiting.delete(run);
      for (const go of waiters ?? []) go();
    },
    next(run, ms) {
      return new Promise((resolve) => {
        const go = () => {
          clearTimeout(timer);
          const waiters = waiting.get(run);
          waiters?.delete(go);
          if (waiters?.size === 0) waiting.delete(run);
          resolve();
        };
        const timer = setTimeout(go, ms);
        const waiters = waiting.get(run) ?? new Set();
        waiters.add(go);
        waiting.set(run, waiters);
      });
    },
  };
}
