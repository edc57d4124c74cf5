// Knative Eventing's delivery rules as pure functions: which spec a Trigger
// delivers with, whether an answer is retried, how long to wait before each
// retry, and the per-attempt timeout. The sources are knative/eventing
// pkg/kncloudevents retries.go, and the Trigger reconciler for which spec applies.
import { durationMs } from './duration.ts';

/** `spec.delivery` of a Trigger or a Broker (eventing.knative.dev/v1 DeliverySpec). */
export interface DeliverySpec {
  deadLetterSink?: Destination;
  retry?: number;
  backoffPolicy?: 'exponential' | 'linear';
  backoffDelay?: string;
  timeout?: string;
  retryAfterMax?: string;
}

/** A Knative Destination: a reference to an Addressable, or a URI (taken as is). */
export interface Destination {
  ref?: { apiVersion?: string; kind: string; name: string; namespace?: string };
  uri?: string;
}

/**
 * The spec a Trigger's events are delivered with: the Trigger's own when it
 * has one, else the Broker's, as a whole (not field by field); the dead-letter
 * sink is the Trigger's, else the Broker's.
 */
export function effectiveDelivery(trigger: DeliverySpec | undefined, broker: DeliverySpec | undefined): DeliverySpec {
  const spec = trigger ?? broker ?? {};
  const deadLetterSink = trigger?.deadLetterSink ?? broker?.deadLetterSink;
  return deadLetterSink ? { ...spec, deadLetterSink } : { ...spec };
}

/**
 * Knative's SelectiveRetry: no answer (a connection error, a timeout), 5xx,
 * 404, 408, 409 and 429 are retried; any other status is final.
 */
export function isRetried(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status >= 500 || [404, 408, 409, 429].includes(status);
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Per-attempt timeout in ms, or undefined for none. */
  timeoutMs: number | undefined;
  /** The wait before retry `n` (1 for the first retry), given the answer that failed. */
  waitMs(n: number, answer?: { status?: number; retryAfter?: string | null }): number;
}

export interface PolicyOptions {
  /** Multiplies every backoff wait: a deviation for tests, so that PT1S waits 10 ms at 0.01 (1 = Knative). */
  backoffScale?: number;
  /** Knative's `delivery-retryafter` feature: Retry-After of a 429 or 503 is honoured, at most `retryAfterMax`. Off by default, as in Knative. */
  retryAfter?: boolean;
}

/** Seconds, or an HTTP date, of a Retry-After header, in ms from `nowMs`. */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, at - nowMs);
}

/**
 * The retry policy of a delivery spec. The wait follows Knative's code (its
 * retry client numbers retries from 0): exponential waits backoffDelay ×
 * 2^(n-1) before retry n (1, 2, 4... × delay), linear backoffDelay × (n-1)
 * (the first retry at once). Without a backoffPolicy or backoffDelay retries
 * are not delayed. With the retryAfter feature and `retryAfterMax` set, a
 * 429 or 503 waits at least its Retry-After, capped at retryAfterMax.
 */
export function retryPolicy(spec: DeliverySpec, opts: PolicyOptions = {}, now: () => number = Date.now): RetryPolicy {
  const scale = opts.backoffScale ?? 1;
  const delay = spec.backoffDelay !== undefined ? durationMs(spec.backoffDelay) : undefined;
  const policy = spec.backoffPolicy;
  const retryAfterMax =
    opts.retryAfter && spec.retryAfterMax !== undefined ? durationMs(spec.retryAfterMax) : undefined;
  const backoff = (n: number): number => {
    if (delay === undefined || policy === undefined) return 0;
    return policy === 'exponential' ? delay * 2 ** (n - 1) : delay * (n - 1);
  };
  return {
    retries: spec.retry ?? 0,
    timeoutMs: spec.timeout !== undefined ? durationMs(spec.timeout) : undefined,
    waitMs(n, answer) {
      let wait = backoff(n);
      if (retryAfterMax !== undefined && (answer?.status === 429 || answer?.status === 503)) {
        wait = Math.max(wait, Math.min(retryAfterMs(answer.retryAfter, now()), retryAfterMax));
      }
      return wait * scale;
    },
  };
}
