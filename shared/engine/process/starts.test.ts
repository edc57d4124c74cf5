import { describe, expect, it } from 'vitest';
import { starts } from './starts.ts';

describe('the starts of one process', () => {
  it('holds a start while it is in flight, then remembers it as finished', async () => {
    const s = starts();
    let done!: () => void;
    const work = s.track('r1', new Promise<void>((r) => (done = r)));
    expect(s.inFlight('r1')).toBe(work);
    expect(s.finished('r1')).toBe(false);
    done();
    await work;
    expect(s.inFlight('r1')).toBeUndefined();
    expect(s.finished('r1')).toBe(true);
  });

  it('forgets a start that failed: its add event reads the run', async () => {
    const s = starts();
    const work = s.track('r1', Promise.reject(new Error('API down')));
    await expect(work).rejects.toThrow('API down');
    expect(s.inFlight('r1')).toBeUndefined();
    expect(s.finished('r1')).toBe(false);
  });

  it('remembers at most `capacity` finished starts, the oldest out first', async () => {
    const s = starts(2);
    for (const name of ['a', 'b', 'c']) await s.track(name, Promise.resolve());
    expect(['a', 'b', 'c'].map((n) => s.finished(n))).toEqual([false, true, true]);
  });
});
