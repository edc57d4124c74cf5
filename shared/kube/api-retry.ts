// Short API blips are retried inside one call (p-retry, abort on anything that
// is not transient); what still fails goes up to be classified. Each attempt
// and the retries together are bounded in time. With etcd down, the API server
// holds a request for up to a minute before it answers 504 or drops it. A
// sender should get its 503 well before that: Knative cuts a request at the
// Service's timeoutSeconds, 60.
import pRetry from 'p-retry';
import { apiErrorKind } from './errors.ts';

export interface RetryPolicy {
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
  /** One attempt that has no answer by then fails (transient: retried while time is left). */
  attemptTimeoutMs: number;
  /** No attempt starts once the attempts so far took this long. */
  maxRetryTimeMs: number;
  /** Told about each failure that is retried (metrics, logs); not about a final or non-transient one. */
  onRetry?: (error: unknown) => void;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 4,
  minTimeoutMs: 50,
  maxTimeoutMs: 1000,
  attemptTimeoutMs: 10_000,
  maxRetryTimeMs: 10_000,
};

export function withRetry<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  return pRetry(call, {
    retries: policy.retries,
    minTimeout: policy.minTimeoutMs,
    maxTimeout: policy.maxTimeoutMs,
    maxRetryTime: policy.maxRetryTimeMs,
    randomize: true,
    // p-retry asks only while retries are left: counted here, a retry is one
    // that happens (onFailedAttempt also sees conflicts and the last failure).
    shouldRetry: ({ error }) => {
      const retry = apiErrorKind(error) === 'transient';
      if (retry) policy.onRetry?.(error);
      return retry;
    },
  });
}
