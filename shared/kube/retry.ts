// Short API blips are retried inside one call (p-retry, abort on anything that
// is not transient); what still fails goes up to be classified.
import pRetry from 'p-retry';
import { apiErrorKind } from './errors.ts';

export interface RetryPolicy {
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
  /** Told about each failure that is retried (metrics, logs); not about a final or non-transient one. */
  onRetry?: (error: unknown) => void;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, minTimeoutMs: 50, maxTimeoutMs: 1000 };

export function withRetry<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  return pRetry(call, {
    retries: policy.retries,
    minTimeout: policy.minTimeoutMs,
    maxTimeout: policy.maxTimeoutMs,
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
