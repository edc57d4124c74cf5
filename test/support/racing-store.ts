// A Store whose first status write of a CascadeRun loses a race on purpose:
// just before it is sent, `interloper` runs (another replica moving the same
// run, the admin editing its status), so the write carries a resourceVersion
// that is already stale and the real API server answers 409. Wraps the real
// Store: the API server sees real calls only.
import type { Store } from '../../shared/kube/store.ts';

export function racingStore(real: Store, interloper: () => Promise<void>): { store: Store; raced(): boolean } {
  let raced = false;
  const store: Store = {
    ...real,
    writeRunStatus: async (run, status) => {
      if (!raced) {
        raced = true;
        await interloper();
      }
      return real.writeRunStatus(run, status);
    },
  };
  return { store, raced: () => raced };
}
