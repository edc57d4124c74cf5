import { describe, expect, it } from 'vitest';
import { deletedJobs } from './deleted-jobs.ts';

describe('the Jobs this process deleted', () => {
  it('remembers each uid, at most `capacity`, the oldest out first', () => {
    const d = deletedJobs(2);
    d.add('a');
    d.add('b');
    d.add('a');
    d.add('c');
    expect(['a', 'b', 'c'].map((u) => d.has(u))).toEqual([true, false, true]);
  });
});
