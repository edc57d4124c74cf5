import { describe, expect, it } from 'vitest';
import { deadLetterRecord } from './record.ts';

const binary = {
  'ce-specversion': '1.0',
  'ce-id': 'e-1',
  'ce-source': '/apis/v1/namespaces/cascade-operator/jobs',
  'ce-type': 'net.cascade.module.finished.v1',
  'ce-knativeerrorcode': '400',
  'ce-knativeerrordest': 'http://cascade.cascade-operator.svc.cluster.local',
  'ce-knativeerrordata': Buffer.from('{"error":"iuid is missing"}').toString('base64'),
  'content-type': 'application/json',
};

describe('deadLetterRecord', () => {
  it('logs a binary event with its attributes, data and the failed reply decoded', () => {
    const record = deadLetterRecord(binary, '{"iuid":"x"}');
    expect(record.event).toMatchObject({
      id: 'e-1',
      type: 'net.cascade.module.finished.v1',
      knativeerrorcode: '400',
      data: { iuid: 'x' },
    });
    expect(record.reply).toBe('{"error":"iuid is missing"}');
    expect(record.invalid).toBeUndefined();
  });

  it('reads a structured event, with no reply when the delivery failed without one', () => {
    const body = JSON.stringify({ specversion: '1.0', id: 'e-2', source: '/s', type: 't', data: 'd' });
    const record = deadLetterRecord({ 'content-type': 'application/cloudevents+json' }, body);
    expect(record.event).toMatchObject({ id: 'e-2', type: 't', data: 'd' });
    expect(record).not.toHaveProperty('reply');
  });

  it('logs a request that is no CloudEvent as it came, with the reason', () => {
    const record = deadLetterRecord({ 'Content-Type': ['text/plain'] }, 'hello');
    expect(record.event).toBeUndefined();
    expect(record.invalid).toMatch(/./);
    expect(record.raw).toEqual({ contentType: 'text/plain', body: 'hello' });
  });
});
