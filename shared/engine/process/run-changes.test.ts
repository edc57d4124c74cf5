import { describe, expect, it } from 'vitest';
import { runChanges } from './run-changes.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('waiting for the next change of a run', () => {
  it("goes on at its run's change, not at another's", async () => {
    const changes = runChanges();
    let done = false;
    const waiting = changes.next('a', 60_000).then(() => (done = true));
    changes.seen('b');
    await settle();
    expect(done).toBe(false);
    changes.seen('a');
    await waiting;
    expect(done).toBe(true);
  });

  it('goes on at its timeout when no change comes, and a later change finds no waiter', async () => {
    const changes = runChanges();
    let done = false;
    const waiting = changes.next('a', 20).then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    await waiting;
    changes.seen('a');
    expect(done).toBe(true);
  });

  it('wakes every waiter of the run at once', async () => {
    const changes = runChanges();
    const both = Promise.all([changes.next('a', 60_000), changes.next('a', 60_000)]);
    changes.seen('a');
    await expect(both).resolves.toEqual([undefined, undefined]);
  });
});
