import { describe, expect, it } from 'vitest';
import {
  deadLetter,
  ERROR_BODY_MAX,
  ERROR_DATA_MAX,
  NOT_A_CLOUDEVENT,
  parseMessage,
  replyMeaning,
  toBinary,
} from './cloudevent.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);
const ce = { 'ce-specversion': '1.0', 'ce-id': '1', 'ce-source': '/s', 'ce-type': 't' };

describe('parseMessage', () => {
  it('a binary event: attributes from ce-* headers, data from the body, its content type as datacontenttype', () => {
    const p = parseMessage(
      { ...ce, 'ce-subject': 'a%20b', 'ce-myext': 'x', 'content-type': 'application/json' },
      bytes('{"a":1}'),
    );
    expect(p).toEqual({
      kind: 'event',
      mode: 'binary',
      event: {
        attributes: {
          specversion: '1.0',
          id: '1',
          source: '/s',
          type: 't',
          subject: 'a b',
          myext: 'x',
          datacontenttype: 'application/json',
        },
        data: bytes('{"a":1}'),
      },
    });
  });

  it('a structured event: attributes from the JSON, data as JSON bytes (datacontenttype defaults to JSON)', () => {
    const p = parseMessage(
      { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      bytes(
        JSON.stringify({ specversion: '1.0', id: '2', source: '/s', type: 't', knativebrokerttl: 255, data: { a: 1 } }),
      ),
    );
    expect(p.kind).toBe('event');
    if (p.kind !== 'event') return;
    expect(p.mode).toBe('structured');
    expect(p.event.attributes).toEqual({
      specversion: '1.0',
      id: '2',
      source: '/s',
      type: 't',
      knativebrokerttl: '255',
      datacontenttype: 'application/json',
    });
    expect(JSON.parse(text(p.event.data))).toEqual({ a: 1 });
  });

  it('structured data_base64 and text data keep their bytes', () => {
    const b64 = parseMessage(
      { 'content-type': 'application/cloudevents+json' },
      bytes(JSON.stringify({ specversion: '1.0', id: '3', source: '/s', type: 't', data_base64: 'aGk=' })),
    );
    expect(b64.kind === 'event' && text(b64.event.data)).toBe('hi');
    const plain = parseMessage(
      { 'content-type': 'application/cloudevents+json' },
      bytes(
        JSON.stringify({
          specversion: '1.0',
          id: '4',
          source: '/s',
          type: 't',
          datacontenttype: 'text/plain',
          data: 'hi',
        }),
      ),
    );
    expect(plain.kind === 'event' && text(plain.event.data)).toBe('hi');
  });

  it('a plain body is no event', () => {
    expect(parseMessage({ 'content-type': 'application/json' }, bytes('{"turlinfo":"x"}'))).toEqual({ kind: 'none' });
  });

  it.each([
    ['a binary event without ce-id', { ...ce, 'ce-id': undefined }, '', /without id/],
    ['a binary event of specversion 0.9', { ...ce, 'ce-specversion': '0.9' }, '', /specversion 0\.9/],
    ['a structured event that is not JSON', { 'content-type': 'application/cloudevents+json' }, '{', /not JSON/],
    [
      'a structured event without type',
      { 'content-type': 'application/cloudevents+json' },
      '{"specversion":"1.0","id":"1","source":"/s"}',
      /without type/,
    ],
    ['a batch', { 'content-type': 'application/cloudevents-batch+json' }, '[]', /batched/],
  ])('%s is invalid', (_n, headers, body, reason) => {
    const p = parseMessage(headers, bytes(body));
    expect(p.kind).toBe('invalid');
    expect(p.kind === 'invalid' && p.reason).toMatch(reason);
  });
});

describe('toBinary', () => {
  it('writes ce-* headers (percent-encoding what a header cannot hold) and the data; parsing it back gives the event', () => {
    const event = {
      attributes: {
        specversion: '1.0',
        id: '1',
        source: '/s',
        type: 't',
        subject: 'é "q" 100%',
        datacontenttype: 'application/json',
      },
      data: bytes('{}'),
    };
    const { headers, body } = toBinary(event);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['ce-subject']).toBe('%C3%A9 %22q%22 100%25');
    expect(parseMessage(headers, body)).toEqual({ kind: 'event', mode: 'binary', event });
  });
});

describe("replyMeaning (the Broker filter's reading of a subscriber's answer)", () => {
  it('2xx with an empty body is delivered', () => {
    expect(replyMeaning(200, { 'content-type': 'application/json' }, bytes(''))).toEqual({ kind: 'delivered' });
    expect(replyMeaning(202, {}, bytes(''))).toEqual({ kind: 'delivered' });
  });

  it('2xx with a JSON body that is no CloudEvent fails with 502, as the filter answers', () => {
    const m = replyMeaning(200, { 'content-type': 'application/json' }, bytes('{"run":"x"}'));
    expect(m.kind === 'failed' && [m.status, text(m.body)]).toEqual([502, NOT_A_CLOUDEVENT]);
  });

  it('2xx with a CloudEvent is a reply event', () => {
    const m = replyMeaning(200, { ...ce, 'content-type': 'application/json' }, bytes('{}'));
    expect(m.kind === 'reply' && m.event.attributes.id).toBe('1');
  });

  it('2xx with a malformed CloudEvent fails with 502', () => {
    const m = replyMeaning(200, { ...ce, 'ce-type': undefined }, bytes(''));
    expect(m.kind === 'failed' && m.status).toBe(502);
  });

  it('a non-2xx fails with its own status and body, whatever the body', () => {
    expect(replyMeaning(503, {}, bytes('{"error":"x"}'))).toEqual({
      kind: 'failed',
      status: 503,
      body: bytes('{"error":"x"}'),
      subscriber: true,
    });
  });
});

describe('deadLetter (what Knative sends its dead-letter sink)', () => {
  const event = { attributes: { specversion: '1.0', id: '1', source: '/s', type: 't' } };
  it("the filter's error JSON (a subscriber's non-2xx, or no answer): knativeerrordest, knativeerrorcode and knativeerrordata (base64)", () => {
    const out = deadLetter(event, {
      extensions: true,
      dest: 'http://fn/',
      status: 400,
      body: bytes('{"error":"unknown run"}'),
    });
    expect(out.kind).toBe('event');
    const attributes = out.kind === 'event' ? out.event.attributes : {};
    expect(attributes).toMatchObject({ knativeerrordest: 'http://fn/', knativeerrorcode: '400' });
    expect(Buffer.from(attributes.knativeerrordata!, 'base64').toString()).toBe('{"error":"unknown run"}');
  });

  it("a per-attempt timeout or the filter's 502: the event as it was, no extensions", () => {
    expect(
      deadLetter(event, { extensions: false, dest: 'http://fn/', status: 502, body: bytes(NOT_A_CLOUDEVENT) }),
    ).toEqual({ kind: 'event', event });
  });

  it("a body of 768 bytes fits knativeerrordata (1024 characters); one byte more makes Knative's dispatcher panic", () => {
    const fits = deadLetter(event, { extensions: true, dest: 'd', status: 500, body: new Uint8Array(ERROR_BODY_MAX) });
    expect(fits.kind === 'event' && fits.event.attributes.knativeerrordata).toHaveLength(ERROR_DATA_MAX);
    expect(
      deadLetter(event, { extensions: true, dest: 'd', status: 500, body: new Uint8Array(ERROR_BODY_MAX + 1) }),
    ).toEqual({ kind: 'panic', bytes: 769 });
  });
});
