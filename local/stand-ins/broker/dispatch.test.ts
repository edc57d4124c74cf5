import { describe, expect, it } from 'vitest';
import type { CloudEvent } from './cloudevent.ts';
import { retryPolicy } from './delivery.ts';
import { dispatch, type Answer, type Attempt } from './dispatch.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const event: CloudEvent = { attributes: { specversion: '1.0', id: 'e1', source: '/s', type: 't' } };
const ok: Answer = { status: 200, headers: {}, body: bytes('') };
const status = (s: number, body = ''): Answer => ({ status: s, headers: {}, body: bytes(body) });
const none: Answer = { headers: {}, body: bytes(''), error: 'ECONNREFUSED' };

function run(
  answers: Answer[],
  spec = { retry: 3, backoffPolicy: 'exponential' as const, backoffDelay: 'PT1S' },
  targets = ['http://a', 'http://b'],
) {
  const attempts: Attempt[] = [];
  const waits: number[] = [];
  const sentTo: string[] = [];
  let i = 0;
  let t = 0;
  const final = dispatch(event, { name: 'trig', next: () => targets[t++ % targets.length] }, retryPolicy(spec), {
    send: async (target) => {
      sentTo.push(target);
      return answers[Math.min(i++, answers.length - 1)]!;
    },
    sleep: async (ms) => {
      waits.push(ms);
    },
    record: (a) => attempts.push(a),
  });
  return { final, attempts, waits, sentTo };
}

describe('dispatch', () => {
  it('a 2xx with an empty body is delivered at the first attempt', async () => {
    const r = run([ok]);
    expect(await r.final).toEqual({ kind: 'delivered' });
    expect(r.attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([[1, 200, 'delivered']]);
  });

  it('a 503 then a 200: retried once after the first backoff, on the next replica', async () => {
    const r = run([status(503, '{"error":"draining"}'), ok]);
    expect(await r.final).toEqual({ kind: 'delivered' });
    expect(r.attempts.map((a) => [a.status, a.outcome])).toEqual([
      [503, 'retry'],
      [200, 'delivered'],
    ]);
    expect(r.waits).toEqual([1000]);
    expect(r.sentTo).toEqual(['http://a', 'http://b']);
  });

  it('a 400 is final at once', async () => {
    const r = run([status(400, '{"error":"unknown run"}')]);
    expect(await r.final).toMatchObject({
      kind: 'failed',
      status: 400,
      attempts: 1,
      body: bytes('{"error":"unknown run"}'),
    });
    expect(r.waits).toEqual([]);
  });

  it('a 500 every time: retry + 1 attempts, waits 1, 2, 4 s, then failed with the last status', async () => {
    const r = run([status(500, 'x')]);
    expect(await r.final).toMatchObject({ kind: 'failed', status: 500, attempts: 4 });
    expect(r.attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'failed']);
    expect(r.waits).toEqual([1000, 2000, 4000]);
  });

  it('a 2xx with a JSON body counts as 502, retried, as the Broker filter does', async () => {
    const r = run([status(200, '{"run":"x"}')], { retry: 1, backoffPolicy: 'exponential', backoffDelay: 'PT1S' });
    expect(await r.final).toMatchObject({ kind: 'failed', status: 502, attempts: 2 });
    expect(r.attempts.map((a) => a.status)).toEqual([502, 502]);
  });

  it('no answer is retried, and ends as 500 with a dispatch error', async () => {
    const r = run([none], { retry: 1, backoffPolicy: 'exponential', backoffDelay: 'PT1S' });
    const final = await r.final;
    expect(final).toMatchObject({ kind: 'failed', status: 500, attempts: 2 });
    expect(final.kind === 'failed' && new TextDecoder().decode(final.body)).toBe('dispatch error: ECONNREFUSED');
    expect(r.attempts.map((a) => [a.status, a.outcome])).toEqual([
      [undefined, 'retry'],
      [undefined, 'failed'],
    ]);
  });

  it('a CloudEvent in a 2xx is a reply event', async () => {
    const reply: Answer = {
      status: 200,
      headers: { 'ce-specversion': '1.0', 'ce-id': 'r', 'ce-source': '/fn', 'ce-type': 'reply' },
      body: bytes(''),
    };
    const final = await run([reply]).final;
    expect(final.kind === 'reply' && final.event.attributes.type).toBe('reply');
  });

  it('no replica to send to counts as no answer', async () => {
    const r = run([ok], { retry: 0, backoffPolicy: 'exponential', backoffDelay: 'PT1S' }, []);
    expect(await r.final).toMatchObject({ kind: 'failed', status: 500, attempts: 1 });
    expect(r.sentTo).toEqual([]);
  });

  it("Knative's error extensions: for a subscriber's non-2xx and for no answer; not for a timeout nor the filter's 502", async () => {
    const timedOut: Answer = { headers: {}, body: bytes(''), error: 'timeout', timedOut: true };
    const nonEvent = status(200, '{"run":"r"}');
    const finals = await Promise.all(
      [status(400, '{"error":"x"}'), none, timedOut, nonEvent].map(
        (a) => run([a], { retry: 0, backoffPolicy: 'exponential', backoffDelay: 'PT1S' }).final,
      ),
    );
    expect(finals.map((f) => f.kind === 'failed' && [f.status, f.extensions])).toEqual([
      [400, true],
      [500, true],
      [500, false],
      [502, false],
    ]);
  });
});
