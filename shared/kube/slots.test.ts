import { describe, expect, it } from 'vitest';
import { slots } from './slots.ts';

/** A call that stays open until its test settles it. */
function pending() {
  let settle!: { resolve: (v: string) => void; reject: (e: Error) => void };
  const promise = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { promise, ...settle };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('slots', () => {
  it('runs at most max calls at once and starts the waiting ones in order as slots free', async () => {
    const run = slots(2);
    const calls = [pending(), pending(), pending(), pending()];
    const started: number[] = [];
    const settled = Promise.allSettled(
      calls.map((c, i) =>
        run(() => {
          started.push(i);
          return c.promise;
        }),
      ),
    );
    await flush();
    expect(started).toEqual([0, 1]);
    calls[1]!.resolve('b');
    await flush();
    expect(started).toEqual([0, 1, 2]);
    calls[0]!.reject(new Error('refused'));
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
    calls[2]!.resolve('c');
    calls[3]!.resolve('d');
    expect((await settled).map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'refused',
      'b',
      'c',
      'd',
    ]);
  });

  it('frees the slot of a call that throws before returning a promise', async () => {
    const run = slots(1);
    const first = run(() => {
      throw new Error('bad request');
    });
    await expect(first).rejects.toThrow('bad request');
    await expect(run(async () => 'next')).resolves.toBe('next');
  });

  it('keeps every slot free again once all calls are done', async () => {
    const run = slots(3);
    await Promise.all(Array.from({ length: 10 }, (_, i) => run(async () => i)));
    const calls = [pending(), pending(), pending()];
    const started: number[] = [];
    calls.forEach(
      (c, i) =>
        void run(() => {
          started.push(i);
          return c.promise;
        }),
    );
    await flush();
    expect(started).toEqual([0, 1, 2]);
    calls.forEach((c) => c.resolve('x'));
  });
});
