import { describe, expect, it } from 'vitest';
import { retryTooManyRequests } from './too-many-requests.ts';

const tooMany = (retryAfter?: string) =>
  Object.assign(new Error('TooManyRequests'), {
    code: 429,
    headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  });

describe('retryTooManyRequests', () => {
  it('retries a 429 after its Retry-After (else 1 s) and returns what the call then gives', async () => {
    const waits: number[] = [];
    let calls = 0;
    const got = await retryTooManyRequests(
      async () => {
        calls++;
        if (calls === 1) throw tooMany('2');
        if (calls === 2) throw tooMany();
        return 'listed';
      },
      async (ms) => {
        waits.push(ms);
      },
    );
    expect(got).toBe('listed');
    expect(waits).toEqual([2000, 1000]);
  });

  it('gives up after 10 tries, and never retries another error', async () => {
    let calls = 0;
    await expect(
      retryTooManyRequests(
        async () => {
          calls++;
          throw tooMany('1');
        },
        async () => {},
      ),
    ).rejects.toMatchObject({ code: 429 });
    expect(calls).toBe(10);
    calls = 0;
    await expect(
      retryTooManyRequests(
        async () => {
          calls++;
          throw Object.assign(new Error('NotFound'), { code: 404 });
        },
        async () => {},
      ),
    ).rejects.toMatchObject({ code: 404 });
    expect(calls).toBe(1);
  });
});
