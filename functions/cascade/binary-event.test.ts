import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { checkedBinaryEvent } from './binary-event.ts';
import type { Headers } from './cloudevent-envelope.ts';

/** The CloudEvents SDK copy that faas-js-runtime loads, as its preHandler uses it. */
const sdk = createRequire(createRequire(import.meta.url).resolve('faas-js-runtime'))('cloudevents') as {
  HTTP: { toEvent(message: { headers: Headers; body: unknown }): { id: string; type: string; data: unknown; validate(): boolean } };
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

const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'r' } } };
const source = {
  'content-type': 'application/json', 'ce-specversion': '1.0', 'ce-id': 'a1', 'ce-type': 'dev.knative.apiserver.resource.update',
  'ce-source': 'https://kubernetes.default.svc', 'ce-subject': '/apis/batch/v1/namespaces/ns/jobs/j',
};

describe('checkedBinaryEvent', () => {
  it.each<[string, Headers]>([
    ['the ApiServerSource\'s event', source],
    ['a Broker delivery with its extensions', { ...source, 'ce-knativearrivaltime': '2026-11-30T21:00:00Z', 'ce-traceparent': '00-x', traceparent: '00-x' }],
    ['a source with a port and a path', { ...source, 'ce-source': 'http://broker.ns.svc:8080/ns/default' }],
    ['an absolute path as source', { ...source, 'ce-source': '/bench' }],
    ['no subject', Object.fromEntries(Object.entries(source).filter(([k]) => k !== 'ce-subject'))],
  ])('reads %s as the SDK does', (_n, headers) => {
    const read = checkedBinaryEvent(headers, job);
    expect(read).toEqual({ id: headers['ce-id'], type: headers['ce-type'], data: job });
    expect(sdkRead(headers, job)).toEqual({ id: read!.id, type: read!.type, data: job });
  });

  it.each<[string, Headers, unknown]>([
    ['an empty subject (the SDK refuses it)', { ...source, 'ce-subject': '' }, job],
    ['an extension name outside [a-z0-9] (the SDK refuses it)', { ...source, 'ce-trace-id': 'x' }, job],
    ['a time (the SDK checks its format)', { ...source, 'ce-time': 'yesterday' }, job],
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
    };
    let combos: Headers[] = [source];
    for (const [name, options] of Object.entries(values)) {
      combos = combos.flatMap((h) => options.map((v) => (v === undefined ? Object.fromEntries(Object.entries(h).filter(([k]) => k !== name)) : { ...h, [name]: v })));
    }
    for (const headers of combos) {
      if (checkedBinaryEvent(headers, job)) expect(sdkRead(headers, job), JSON.stringify(headers)).not.toBe('refused');
    }
    expect(combos.filter((h) => checkedBinaryEvent(h, job)).length).toBeGreaterThan(0);
  });
});
