import { describe, expect, it } from 'vitest';
import { effectiveDelivery, isRetried, retryAfterMs, retryPolicy, type DeliverySpec } from './delivery.ts';

const dls = { ref: { apiVersion: 'serving.knative.dev/v1', kind: 'Service', name: 'dead-letters' } };

describe('isRetried (Knative SelectiveRetry)', () => {
  it.each([undefined, 500, 502, 503, 504, 599, 404, 408, 409, 429])('%s is retried', (status) => {
    expect(isRetried(status)).toBe(true);
  });
  it.each([200, 202, 204, 301, 304, 400, 401, 403, 405, 410, 413, 415, 422])('%s is final', (status) => {
    expect(isRetried(status)).toBe(false);
  });
});

describe('effectiveDelivery', () => {
  const broker: DeliverySpec = { retry: 5, backoffPolicy: 'exponential', backoffDelay: 'PT0.5S', deadLetterSink: dls };
  it("a Trigger without delivery takes the Broker's", () => {
    expect(effectiveDelivery(undefined, broker)).toEqual(broker);
  });
  it("a Trigger's delivery replaces the Broker's as a whole, not field by field", () => {
    expect(effectiveDelivery({ retry: 2 }, broker)).toEqual({ retry: 2, deadLetterSink: dls });
  });
  it("the Trigger's dead-letter sink comes first", () => {
    const own = { uri: 'http://own' };
    expect(effectiveDelivery({ retry: 1, deadLetterSink: own }, broker).deadLetterSink).toBe(own);
  });
  it('neither: no retries, no dead-letter sink', () => {
    expect(effectiveDelivery(undefined, undefined)).toEqual({});
  });
});

describe('retryPolicy', () => {
  it('exponential waits delay × 2^(n-1) before retry n', () => {
    const p = retryPolicy({ retry: 5, backoffPolicy: 'exponential', backoffDelay: 'PT1S' });
    expect(p.retries).toBe(5);
    expect([1, 2, 3, 4, 5].map((n) => p.waitMs(n))).toEqual([1000, 2000, 4000, 8000, 16000]);
  });
  it('linear waits delay × (n-1)', () => {
    const p = retryPolicy({ retry: 3, backoffPolicy: 'linear', backoffDelay: 'PT0.5S' });
    expect([1, 2, 3].map((n) => p.waitMs(n))).toEqual([0, 500, 1000]);
  });
  it('without a policy or a delay, retries are not delayed; without retry, none', () => {
    expect(retryPolicy({ retry: 2, backoffDelay: 'PT1S' }).waitMs(2)).toBe(0);
    expect(retryPolicy({ retry: 2, backoffPolicy: 'linear' }).waitMs(2)).toBe(0);
    expect(retryPolicy({}).retries).toBe(0);
  });
  it('the timeout is per attempt, when set', () => {
    expect(retryPolicy({ timeout: 'PT30S' }).timeoutMs).toBe(30_000);
    expect(retryPolicy({}).timeoutMs).toBeUndefined();
  });
  it('backoffScale shortens the waits (a test deviation), not the timeout', () => {
    const p = retryPolicy(
      { retry: 2, backoffPolicy: 'exponential', backoffDelay: 'PT1S', timeout: 'PT30S' },
      { backoffScale: 0.01 },
    );
    expect([p.waitMs(1), p.waitMs(2), p.timeoutMs]).toEqual([10, 20, 30_000]);
  });
  it('Retry-After counts only with the retryAfter feature and retryAfterMax, on 429 and 503, capped', () => {
    const spec: DeliverySpec = {
      retry: 2,
      backoffPolicy: 'exponential',
      backoffDelay: 'PT0.1S',
      retryAfterMax: 'PT5S',
    };
    expect(retryPolicy(spec).waitMs(1, { status: 429, retryAfter: '3' })).toBe(100);
    const on = retryPolicy(spec, { retryAfter: true });
    expect(on.waitMs(1, { status: 429, retryAfter: '3' })).toBe(3000);
    expect(on.waitMs(1, { status: 503, retryAfter: '60' })).toBe(5000);
    expect(on.waitMs(1, { status: 500, retryAfter: '3' })).toBe(100);
    expect(
      retryPolicy({ ...spec, retryAfterMax: undefined }, { retryAfter: true }).waitMs(1, {
        status: 429,
        retryAfter: '3',
      }),
    ).toBe(100);
  });
  it('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Mon, 30 Nov 2026 12:00:04 GMT', now)).toBe(4000);
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBe(0);
  });
});
