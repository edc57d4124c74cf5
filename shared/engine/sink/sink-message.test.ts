import { HTTP } from 'cloudevents';
import { describe, expect, it } from 'vitest';
import { RUN_SUCCEEDED, type RunEndEvent } from '../../api/events.ts';
import { binaryMessage } from './sink-message.ts';

const EVENT: RunEndEvent = {
  id: 'uid-1-succeeded',
  type: RUN_SUCCEEDED,
  source: '/cascade/ns/cao',
  subject: 'cao-abc',
  time: '2026-11-29T12:00:00.000Z',
  data: { runname: 'cao-abc', phase: 'Succeeded', result: ['a: success\n'] },
};

describe('the run-end CloudEvent as the SDK encodes it', () => {
  it('is a binary-mode message: attributes in ce- headers, the data as a JSON body', () => {
    const m = binaryMessage(EVENT, {});
    expect(m.headers).toEqual({
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': EVENT.id,
      'ce-type': RUN_SUCCEEDED,
      'ce-source': '/cascade/ns/cao',
      'ce-subject': 'cao-abc',
      'ce-time': EVENT.time,
    });
    expect(JSON.parse(String(m.body))).toEqual(EVENT.data);
  });

  it('carries the K_CE_OVERRIDES extensions, and reads back as a valid CloudEvent', () => {
    const m = binaryMessage(EVENT, { cluster: 'prod', team: 'ops' });
    expect(m.headers).toMatchObject({ 'ce-cluster': 'prod', 'ce-team': 'ops', 'ce-id': EVENT.id });
    const back = HTTP.toEvent(m);
    expect(Array.isArray(back)).toBe(false);
    expect(back).toMatchObject({
      specversion: '1.0',
      id: EVENT.id,
      type: RUN_SUCCEEDED,
      subject: 'cao-abc',
      cluster: 'prod',
      team: 'ops',
      data: EVENT.data,
    });
  });

  it('is the same message on every send: a redelivery can be deduplicated by id and time', () => {
    expect(binaryMessage(EVENT, { a: 'b' })).toEqual(binaryMessage(EVENT, { a: 'b' }));
  });
});
