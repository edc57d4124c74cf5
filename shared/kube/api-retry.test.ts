import { describe, expect, it } from 'vitest';
import { withRetry, type RetryPolicy } from './api-retry.ts';

const status = (code: number) => Object.assign(new Error(`HTTP ${code}`), { code });
const network = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** A call failing with `errors` in turn, then answering 'ok'; how often it was called and which failures were counted as retried. */
async function play(errors: Error[], retries = 4) {
  let calls = 0;
  const retried: unknown[] = [];
  const policy: RetryPolicy = {
    retries,
    minTimeoutMs: 1,
    maxTimeoutMs: 2,
    attemptTimeoutMs: 1000,
    maxRetryTimeMs: 10_000,
    onRetry: (e) => retried.push(e),
  };
  const outcome = await withRetry(policy, async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'ok';
  }).catch((e: unknown) => e);
  return { outcome, calls, retried: retried.map((e) => String((e as Error).message)) };
}

describe('withRetry', () => {
  it('retries transient failures (network, 429, 5xx) and counts each retry', async () => {
    expect(await play([network(), status(503), status(429)])).toEqual({
      outcome: 'ok',
      calls: 4,
      retried: ['read ECONNRESET', 'HTTP 503', 'HTTP 429'],
    });
  });

  it('counts only the retries that happen, not the last failure', async () => {
    const failing = Array.from({ length: 10 }, () => status(503));
    const { outcome, calls, retried } = await play(failing, 2);
    expect([String((outcome as Error).message), calls, retried.length]).toEqual(['HTTP 503', 3, 2]);
  });

  it.each([409, 404, 422, 403])('gives a %i back at once, counting no retry', async (code) => {
    const { outcome, calls, retried } = await play([status(code)]);
    expect([(outcome as { code: number }).code, calls, retried]).toEqual([code, 1, []]);
  });
});
