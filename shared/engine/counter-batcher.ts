// Group commit for the CascadeAutoOperator's counters. Every run start and end
// changes that one object; a burst of runs would have every request race for
// it. Instead each process keeps one write in flight and folds all changes that
// arrived meanwhile into the next one, so writers are as many as processes.
// A caller is answered only once its change is written: nothing is counted
// before it is durable, and applyCounter's keys keep it exactly-once.
import type { CounterChange } from '../core/counters.ts';

interface Waiting {
  change: CounterChange;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function counterBatcher(write: (changes: CounterChange[]) => Promise<void>): (change: CounterChange) => Promise<void> {
  let queue: Waiting[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await write(batch.map((w) => w.change));
        batch.forEach((w) => w.resolve());
      } catch (error) {
        batch.forEach((w) => w.reject(error));
      }
    }
    writing = false;
  };
  return (change) => new Promise<void>((resolve, reject) => {
    queue.push({ change, resolve, reject });
    if (!writing) void drain();
  });
}
