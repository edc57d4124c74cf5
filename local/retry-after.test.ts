import { describe, expect, it } from 'vitest';
import { nextWaitMs, retryAfterMs } from './retry-after.ts';

describe('retryAfterMs', () => {
  it.each([
    ['1', 1000],
    [' 2 ', 2000],
    ['0', 0],
    ['60', 5000],
  ])('reads Retry-After %j as %i ms, at most 5 s', (header, ms) => {
    expect(retryAfterMs(header)).toBe(ms);
  });

  it.each([undefined, '', 'soon', '1.5', 'Wed, 21 Oct 2026 07:28:00 GMT'])('ignores %j', (header) => {
    expect(retryAfterMs(header)).toBeUndefined();
  });
});

describe('nextWaitMs', () => {
  it('waits what Retry-After says on 429 and 503', () => {
    expect(nextWaitMs({ status: 429, retryAfter: '1' }, 1, 0, 60_000)).toBe(1000);
    expect(nextWaitMs({ status: 503, retryAfter: '3' }, 4, 0, 60_000)).toBe(3000);
  });

  it('backs off from 200 ms to 2 s without Retry-After', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => nextWaitMs({ status: 429, retryAfter: undefined }, a, 0, 60_000))).toEqual([
      200, 400, 800, 1600, 2000, 2000,
    ]);
  });

  it.each([undefined, 400, 403, 404, 409, 422, 500, 504])('does not retry status %s', (status) => {
    expect(nextWaitMs({ status: status, retryAfter: '1' }, 1, 0, 60_000)).toBeUndefined();
  });

  it('gives up when the wait would pass the budget', () => {
    expect(nextWaitMs({ status: 429, retryAfter: '1' }, 3, 59_000, 60_000)).toBe(1000);
    expect(nextWaitMs({ status: 429, retryAfter: '1' }, 3, 59_001, 60_000)).toBeUndefined();
  });
});
