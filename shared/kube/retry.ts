// Short API blips are retried inside one call (p-retry, abort on anything that
// is not transient); what still fails goes up to be classified.
import pRetry from 'p-retry';
import { apiErrorKind } from './errors.ts';

export interface RetryPolicy {
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
  /** Told about each retried failure (metrics, logs). */
  onRetry?: (error: unknown) => void;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, minTimeoutMs: 50, maxTimeoutMs: 1000 };

export function withRetry<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  return pRetry(call, {
    retries: policy.retries,
    minTimeout: policy.minTimeoutMs,
    maxTimeout: policy.maxTimeoutMs,
    randomize: true,
    shouldRetry: ({ error }) => apiErrorKind(error) === 'transient',
    onFailedAttempt: ({ error }) => policy.onRetry?.(error),
  });
}
