// The runs this process starts after its replies (entry/start-created.ts):
// each start in flight, by run name, and the names of the last ones it
// finished. A finished start made its run's first Job, or queued the run.
// So the run's add event, which comes after, costs no API call here.
// A run not remembered is read, and repaired when its first Job may be missing.
import { boundedSet } from './bounded-set.ts';

export interface Starts {
  /** This run's start, while it is in flight in this process. */
  inFlight(name: string): Promise<void> | undefined;
  /** Holds `work` as this run's start until it settles; one that succeeds is remembered as finished. */
  track(name: string, work: Promise<void>): Promise<void>;
  /** Whether this process finished this run's start. */
  finished(name: string): boolean;
}

export function starts(capacity = 4_096): Starts {
  const running = new Map<string, Promise<void>>();
  const done = boundedSet(capacity);
  return {
    inFlight: (name) => running.get(name),
    track(name, work) {
      const tracked = work.then(
        () => {
          done.add(name);
          if (running.get(name) === tracked) running.delete(name);
        },
        (error: unknown) => {
          if (running.get(name) === tracked) running.delete(name);
          throw error;
        },
      );
      running.set(name, tracked);
      return tracked;
    },
    finished: (name) => done.has(name),
  };
}
