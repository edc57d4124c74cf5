// A token bucket (as golang.org/x/time/rate in the Go controller): `rate`
// tokens a second, at most `burst` saved. Pure: the caller passes the time.
export interface Bucket {
  tokens: number;
  at: number;
}

export interface BucketLimits {
  ratePerSecond: number;
  burst: number;
}

export type Take = { ok: true; bucket: Bucket } | { ok: false; bucket: Bucket; retryAfterSeconds: number };

export function fullBucket(limits: BucketLimits, nowMs: number): Bucket {
  return { tokens: limits.burst, at: nowMs };
}

export function take(bucket: Bucket, limits: BucketLimits, nowMs: number): Take {
  const elapsed = Math.max(0, nowMs - bucket.at) / 1000;
  const tokens = Math.min(limits.burst, bucket.tokens + elapsed * limits.ratePerSecond);
  if (tokens >= 1) return { ok: true, bucket: { tokens: tokens - 1, at: nowMs } };
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / limits.ratePerSecond));
  return { ok: false, bucket: { tokens, at: nowMs }, retryAfterSeconds };
}
