import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { checkedBinaryEvent, isRfc3339 } from './binary-event.ts';
import type { Headers } from './cloudevent-envelope.ts';

/** The CloudEvents SDK copy that faas-js-runtime loads, as its preHandler uses it. */
const sdk = createRequire(createRequire(import.meta.url).resolve('faas-js-runtime'))('cloudevents') as {
  HTTP: {
    toEvent(message: { headers: Headers; body: unknown }): {
      id: string;
      type: string;
      data: unknown;
      validate(): boolean;
    };
  };
};

function sdkRead(headers: Headers, body: unknown): { id: string; type: string; data: unknown } | 'refused' {
  try {
    const e = sdk.HTTP.toEvent({ headers, body });
    e.validate();
    return { id: e.id, type: e.type, data: e.data };
  } catch {
    return 'refused';
  }
}

const job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'r' } },
};
const source = {
  'content-type': 'application/json',
  'ce-specversion': '1.0',
  'ce-id': 'a1',
  'ce-type': 'dev.knative.apiserver.resource.update',
  'ce-source': 'https://kubernetes.default.svc',
  'ce-subject': '/apis/batch/v1/namespaces/ns/jobs/j',
};

describe('checkedBinaryEvent', () => {
  it.each<[string, Headers]>([
    ["the ApiServerSource's event", source],
    [
      'a Broker delivery with its extensions',
      { ...source, 'ce-knativearrivaltime': '2026-11-30T21:00:00Z', 'ce-traceparent': '00-x', traceparent: '00-x' },
    ],
    ['a source with a port and a path', { ...source, 'ce-source': 'http://broker.ns.svc:8080/ns/default' }],
    ['an absolute path as source', { ...source, 'ce-source': '/bench' }],
    [
      "the real ApiServerSource's time and extensions",
      {
        ...source,
        'ce-time': '2026-12-01T15:04:05.123456789Z',
        'ce-kind': 'Job',
        'ce-name': 'j',
        'ce-namespace': 'ns',
        'ce-apiversion': 'batch/v1',
      },
    ],
    ['a time with an offset', { ...source, 'ce-time': '2026-02-28t23:59:59+05:30' }],
    ['no subject', Object.fromEntries(Object.entries(source).filter(([k]) => k !== 'ce-subject'))],
  ])('reads %s as the SDK does', (_n, headers) => {
    const read = checkedBinaryEvent(headers, job);
    expect(read).toEqual({ id: headers['ce-id'], type: headers['ce-type'], data: job });
    expect(sdkRead(headers, job)).toEqual({ id: read!.id, type: read!.type, data: job });
  });

  it.each<[string, Headers, unknown]>([
    ['an empty subject (the SDK refuses it)', { ...source, 'ce-subject': '' }, job],
    ['an extension name outside [a-z0-9] (the SDK refuses it)', { ...source, 'ce-trace-id': 'x' }, job],
    ['a time that is not RFC 3339', { ...source, 'ce-time': 'yesterday' }, job],
    ['a time without its offset', { ...source, 'ce-time': '2026-12-01T15:04:05' }, job],
    ['a leap second', { ...source, 'ce-time': '2016-12-31T23:59:60Z' }, job],
    ['a dataschema (the SDK checks it is a URI)', { ...source, 'ce-dataschema': 'not a uri' }, job],
    ['a source of another shape', { ...source, 'ce-source': 'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66' }, job],
    ['a source with a query', { ...source, 'ce-source': 'https://x.example/?a=b' }, job],
    ['another content type', { ...source, 'content-type': 'application/json; charset=utf-8' }, job],
    ['data that is not a JSON object', source, [1, 2]],
    ['data that is a string', source, 'text'],
    ['an empty id', { ...source, 'ce-id': '' }, job],
    ['specversion 0.3', { ...source, 'ce-specversion': '0.3' }, job],
  ])('leaves %s to the SDK', (_n, headers, body) => {
    expect(checkedBinaryEvent(headers, body)).toBeUndefined();
  });

  it('takes no event the SDK refuses, over combinations of attributes', () => {
    const values: Record<string, (string | undefined)[]> = {
      'ce-subject': [undefined, '', 's'],
      'ce-source': ['https://kubernetes.default.svc', '/x', 'a b', '::', 'http://h:99999999/p'],
      'ce-x_y': [undefined, 'v'],
      'ce-ext1': [undefined, 'v'],
      'ce-time': [
        undefined,
        '',
        '2026-12-01T15:04:05Z',
        '2026-02-29T00:00:00Z',
        '2024-02-29T00:00:00.5-01:00',
        '2026-13-01T00:00:00Z',
        '2026-12-01 15:04:05Z',
        '2026-12-01T24:00:00Z',
        '2026-12-01T15:04:05+24:00',
      ],
    };
    let combos: Headers[] = [source];
    for (const [name, options] of Object.entries(values)) {
      combos = combos.flatMap((h) =>
        options.map((v) =>
          v === undefined ? Object.fromEntries(Object.entries(h).filter(([k]) => k !== name)) : { ...h, [name]: v },
        ),
      );
    }
    for (const headers of combos) {
      if (checkedBinaryEvent(headers, job)) expect(sdkRead(headers, job), JSON.stringify(headers)).not.toBe('refused');
    }
    expect(combos.filter((h) => checkedBinaryEvent(h, job)).length).toBeGreaterThan(0);
  });
});

describe('isRfc3339', () => {
  it.each([
    '2026-12-01T15:04:05Z',
    '2024-02-29T00:00:00.000+01:00',
    '1999-12-31t23:59:59z',
    '2000-02-29T12:00:00-12:30',
  ])('takes %s', (t) => {
    expect(isRfc3339(t)).toBe(true);
  });
  it.each([
    '',
    'yesterday',
    '2026-12-01',
    '2026-12-01T15:04Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-12-01T15:60:00Z',
    '2026-12-01T15:04:05+0100',
    '2026-12-01T15:04:05+01:60',
    ' 2026-12-01T15:04:05Z',
  ])('refuses %j', (t) => {
    expect(isRfc3339(t)).toBe(false);
  });
  it('takes no time the SDK refuses, over every day of a leap and a common year', () => {
    const days = [2024, 2026].flatMap((year) =>
      Array.from({ length: 12 * 32 }, (_, i) => [year, 1 + Math.floor(i / 32), 1 + (i % 32)]),
    );
    const times = days.map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}T01:02:03Z`);
    for (const t of times.filter(isRfc3339)) expect(sdkRead({ ...source, 'ce-time': t }, job), t).not.toBe('refused');
    expect(times.filter(isRfc3339)).toHaveLength(366 + 365);
  });
});
