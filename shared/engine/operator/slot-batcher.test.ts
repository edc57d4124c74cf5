import { describe, expect, it } from 'vitest';
import type { SlotChange } from '../../core/concurrency-limit.ts';
import { slotBatcher } from './slot-batcher.ts';

const start = (run: string): SlotChange => ({ kind: 'started', run });

describe('slot group commit', () => {
  it('folds the changes that arrive during a write into the next write', async () => {
    const writes: string[][] = [];
    let release: () => void = () => {};
    const count = slotBatcher(async (changes) => {
      writes.push(changes.map((c) => c.run));
      if (writes.length === 1)
        await new Promise<void>((r) => {
          release = r;
        });
    });
    const first = count(start('a'));
    const rest = [count(start('b')), count(start('c')), count(start('d'))];
    release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('rejects every caller of a failed write, and goes on with later ones', async () => {
    let fail = true;
    const count = slotBatcher(async () => {
      if (fail) throw new Error('API down');
    });
    await expect(count(start('a'))).rejects.toThrow('API down');
    fail = false;
    await expect(count(start('b'))).resolves.toBeUndefined();
  });

  it('answers every caller of a write with what that write returned', async () => {
    let writes = 0;
    let release: () => void = () => {};
    const count = slotBatcher(async (changes) => {
      writes++;
      if (writes === 1)
        await new Promise<void>((r) => {
          release = r;
        });
      return `write ${writes}: ${changes.map((c) => c.run).join(',')}`;
    });
    const first = count(start('a'));
    const rest = [count(start('b')), count(start('c'))];
    release();
    expect(await Promise.all([first, ...rest])).toEqual(['write 1: a', 'write 2: b,c', 'write 2: b,c']);
  });
});
