import { describe, expect, it } from 'vitest';
import { REASON_MAX } from '../../shared/api/reason.ts';
import { accepted, failed, invalid, unavailable } from '../../shared/engine/entry/outcome.ts';
import { rateLimited, refused, reply, toDelivery, type Reply } from './reply.ts';

const LINE_BREAKING = /[\p{Cc}\u2028\u2029]/u;

describe('reply', () => {
  it.each([
    ['accepted', accepted({ run: 'r' }), 200],
    ['invalid', invalid('bad'), 400],
    ['unavailable', unavailable('retry'), 503],
    ['failed', failed('unusable'), 500],
  ])('%s is answered %i', (_n, outcome, status) => {
    expect(reply(outcome).statusCode).toBe(status);
  });

  it.each([
    ['an outcome', (reason: string) => reply(invalid(reason))],
    ["a 500 of the API server's words", (reason: string) => reply(failed(reason))],
    ['a refusal before the function', (reason: string) => refused(400, reason)],
  ])('the reason of %s is one line of at most REASON_MAX characters', (_n, make) => {
    const error = String(
      (make(`iuid "ab\ncd-1"\r\n${'x'.repeat(10_000)}\u2028`).body as Record<string, unknown>).error,
    );
    expect(error).not.toMatch(LINE_BREAKING);
    expect(error.length).toBeLessThanOrEqual(REASON_MAX);
    expect(error.startsWith('iuid "ab\\ncd-1"\\r\\n')).toBe(true);
  });

  describe('to a CloudEvent delivery', () => {
    it('a success is the same status with an empty body, so that a Broker reads no reply event', () => {
      const r = toDelivery(reply(accepted({ run: 'r', verdict: 'applied' })));
      expect(r).toMatchObject({ statusCode: 200, body: '' });
      expect(r.headers['content-type']).not.toMatch(/json|cloudevents/);
    });

    it.each<[string, Reply]>([
      ['invalid', reply(invalid('unknown run "x"'))],
      ['unavailable', reply(unavailable('retry'))],
      ['failed', reply(failed('unusable'))],
      ['rate limited', rateLimited(2)],
      ['refused', refused(413, 'too large')],
    ])('a failure (%s) keeps its status, headers and {error} body for the dead-letter sink', (_n, r) => {
      expect(toDelivery(r)).toEqual(r);
    });
  });
});
