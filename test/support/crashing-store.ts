// A Store that "crashes the process" at its n-th API call: before the call
// (the call never happens) or after it (the call happened, its answer is
// lost). Every later call of that store fails too, as a dead process makes no
// more calls. Wraps the real Store: the API server sees real calls only.
import type { Store } from '../../shared/kube/store.ts';

export class Crash extends Error {
  override name = 'Crash';
}

export interface CrashingStore {
  store: Store;
  calls(): number;
  crashed(): boolean;
}

export function crashingStore(real: Store, crashAt: number, when: 'before' | 'after'): CrashingStore {
  let calls = 0;
  let dead = false;
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (dead) throw new Crash('process is dead');
      calls++;
      if (calls === crashAt && when === 'before') {
        dead = true;
        throw new Crash(`crashed before call ${calls}`);
      }
      const result = await fn(...args);
      if (calls === crashAt && when === 'after') {
        dead = true;
        throw new Crash(`crashed after call ${calls}`);
      }
      return result;
    };
  const store = Object.fromEntries(
    Object.entries(real).map(([k, fn]) => [k, wrap(fn as (...a: unknown[]) => Promise<unknown>)]),
  ) as unknown as Store;
  return { store, calls: () => calls, crashed: () => dead };
}
