// What stands before the engine: the token bucket for new work (429 with
// Retry-After; lane.ts says which requests are new work), and draining after SIGTERM (new run requests get 503, everything in flight
// finishes). The only state of the process, and none of it is the runs'.
import { fullBucket, take, type Bucket, type BucketLimits } from '../../shared/core/token-bucket.ts';

export interface Gate {
  admit(nowMs: number): { ok: true } | { ok: false; retryAfterSeconds: number };
  draining(): boolean;
  /** Runs `work` counted as in flight. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** Stops new runs, then waits for the requests in flight, at most `graceMs`. */
  drain(graceMs: number): Promise<number>;
}

export function gate(limits: BucketLimits, nowMs: number): Gate {
  let bucket: Bucket = fullBucket(limits, nowMs);
  let inFlight = 0;
  let closing = false;
  let idle: (() => void) | undefined;
  return {
    admit(now) {
      const t = take(bucket, limits, now);
      bucket = t.bucket;
      return t.ok ? { ok: true } : { ok: false, retryAfterSeconds: t.retryAfterSeconds };
    },
    draining: () => closing,
    async track(work) {
      inFlight++;
      try {
        return await work();
      } finally {
        inFlight--;
        if (inFlight === 0) idle?.();
      }
    },
    async drain(graceMs) {
      closing = true;
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((r) => {
            idle = r;
          }),
          new Promise((r) => setTimeout(r, graceMs).unref()),
        ]);
      }
      return inFlight;
    },
  };
}
