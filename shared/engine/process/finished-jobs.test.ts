import { describe, expect, it } from 'vitest';
import { finishedJobs } from './finished-jobs.ts';

describe('finishedJobs', () => {
  it('does the work of a key once: while it runs and after it succeeded', async () => {
    const once = finishedJobs();
    let calls = 0;
    const work = async () => {
      calls++;
      return calls;
    };
    const [a, b] = await Promise.all([once('job-1/Succeeded', work), once('job-1/Succeeded', work)]);
    expect(await once('job-1/Succeeded', work)).toBe(1);
    expect([a, b, calls]).toEqual([1, 1, 1]);
    expect(await once('job-2/Succeeded', work)).toBe(2);
  });

  it('forgets a key whose work failed, so a redelivery does it again', async () => {
    const once = finishedJobs();
    await expect(once('k', () => Promise.reject(new Error('API down')))).rejects.toThrow('API down');
    expect(await once('k', async () => 'done')).toBe('done');
  });

  it('remembers only the last `capacity` keys', async () => {
    const once = finishedJobs(2);
    for (const k of ['a', 'b', 'c']) await once(k, async () => k);
    expect(await once('a', async () => 'again')).toBe('again');
    expect(await once('c', async () => 'again')).toBe('c');
  });

  it('forgets a result `keep` refuses, and the events that shared it do their own work', async () => {
    const once = finishedJobs();
    const keep = (v: string) => v !== 'contradicted';
    let release = () => {};
    const forged = once(
      'job-1/Succeeded',
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve('contradicted');
        }),
      keep,
    );
    const shared = once('job-1/Succeeded', async () => 'confirmed', keep);
    release();
    expect(await forged).toBe('contradicted');
    expect(await shared).toBe('confirmed');
    expect(await once('job-1/Succeeded', async () => 'again', keep)).toBe('again');
    expect(await once('job-1/Succeeded', async () => 'not asked', keep)).toBe('again');
  });
});
