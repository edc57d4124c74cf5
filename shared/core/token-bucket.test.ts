import { describe, expect, it } from 'vitest';
import { fullBucket, take, type Bucket } from './token-bucket.ts';

const limits = { ratePerSecond: 100, burst: 200 };

function takeMany(bucket: Bucket, n: number, nowMs: number): { bucket: Bucket; granted: number } {
  let granted = 0;
  for (let i = 0; i < n; i++) {
    const t = take(bucket, limits, nowMs);
    bucket = t.bucket;
    if (t.ok) granted++;
  }
  return { bucket, granted };
}

describe('token bucket', () => {
  it('grants the burst at once, then refuses with a Retry-After', () => {
    const { bucket, granted } = takeMany(fullBucket(limits, 0), 250, 0);
    expect(granted).toBe(200);
    expect(take(bucket, limits, 0)).toMatchObject({ ok: false, retryAfterSeconds: 1 });
  });

  it.each([
    [10, 1],
    [500, 50],
    [1000, 100],
    [5000, 200],
  ])('refills at the rate: after %i ms, %i more', (ms, more) => {
    const empty = takeMany(fullBucket(limits, 0), 200, 0).bucket;
    expect(takeMany(empty, 1000, ms).granted).toBe(more);
  });

  it('tells a slow rate to wait longer', () => {
    const slow = { ratePerSecond: 0.2, burst: 1 };
    const first = take(fullBucket(slow, 0), slow, 0);
    expect(take(first.bucket, slow, 0)).toMatchObject({ ok: false, retryAfterSeconds: 5 });
  });
});
