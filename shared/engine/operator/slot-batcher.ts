// Group commit for the concurrency limit's writes. Under a limit every run
// start and end changes the one CascadeAutoOperator; a burst of runs would
// have every request race for it. Instead each process keeps one write in
// flight and folds all changes that arrived meanwhile into the next one, so
// writers are as many as processes. A caller is answered only once its change
// is written (with what the write returned): nothing is admitted before it is
// durable, and each change is idempotent (core/concurrency-limit.ts).
import type { SlotChange } from '../../core/concurrency-limit.ts';

interface Waiting<R> {
  change: SlotChange;
  resolve: (written: R) => void;
  reject: (error: unknown) => void;
}

export function slotBatcher<R>(write: (changes: SlotChange[]) => Promise<R>): (change: SlotChange) => Promise<R> {
  let queue: Waiting<R>[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const written = await write(batch.map((w) => w.change));
        batch.forEach((w) => w.resolve(written));
      } catch (error) {
        batch.forEach((w) => w.reject(error));
      }
    }
    writing = false;
  };
  return (change) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ change, resolve, reject });
      if (!writing) void drain();
    });
}

/**
 * One group commit per scenario (each has its own CascadeAutoOperator), made
 * on first use. `seen`, a copy of the operator the caller has just read, is
 * passed on to that scenario's function (admission-writes.ts offerOperator).
 */
export function perScenario<R, S>(
  make: (scenario: string) => (change: SlotChange, seen?: S) => Promise<R>,
): (change: SlotChange, scenario: string, seen?: S) => Promise<R> {
  const batchers = new Map<string, (change: SlotChange, seen?: S) => Promise<R>>();
  return (change, scenario, seen) => {
    let batcher = batchers.get(scenario);
    if (!batcher) batchers.set(scenario, (batcher = make(scenario)));
    return batcher(change, seen);
  };
}
