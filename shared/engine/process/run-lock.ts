// Per-run order inside one process. A Job's change arrives as several events
// at once: added, active, ready, complete, deleted. Each is a request to look
// at the run again. Run concurrently, they race for the same status write,
// with 409s and reloads, and create or delete the same Job twice. Here the work on one run
// is done one at a time, and a request to look again that finds one already
// waiting shares it: that one loads the run after this request's change
// anyway (level-triggered). Other processes still meet through
// resourceVersion; nothing here is needed for correctness, only for thrift.

export type RunLock = <T>(run: string, coalesce: boolean, work: () => Promise<T>) => Promise<T>;

export function runLock(): RunLock {
  const tails = new Map<string, Promise<unknown>>();
  const waiting = new Map<string, Promise<unknown>>();
  return <T>(run: string, coalesce: boolean, work: () => Promise<T>): Promise<T> => {
    const shared = coalesce ? waiting.get(run) : undefined;
    if (shared) return shared as Promise<T>;
    const previous = tails.get(run) ?? Promise.resolve();
    const next: Promise<T> = previous.then(() => {
      if (waiting.get(run) === next) waiting.delete(run);
      return work();
    });
    if (coalesce) waiting.set(run, next);
    const tail = next.then(
      () => {},
      () => {},
    );
    tails.set(run, tail);
    void tail.then(() => {
      if (tails.get(run) === tail) tails.delete(run);
    });
    return next;
  };
}

/** No order kept: the work runs at once. The janitor needs none: its sweep looks at each run once. */
export const UNLOCKED: RunLock = (_run, _coalesce, work) => work();
