import { describe, expect, it } from 'vitest';
import { envelopeOf, type Headers } from './cloudevent-envelope.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const binary = {
  ...JSON_TYPE,
  'ce-specversion': '1.0',
  'ce-id': 'e1',
  'ce-source': '/test',
  'ce-type': 'net.cascade.run.requested.v1',
};
const without = (name: string): Headers => Object.fromEntries(Object.entries(binary).filter(([k]) => k !== name));
const event = {
  specversion: '1.0',
  id: 'e1',
  source: '/test',
  type: 'net.cascade.run.requested.v1',
  data: { iuid: 'abcdef' },
};
const structuredType = { 'content-type': 'application/cloudevents+json' };
const structured = (e: Record<string, unknown>) => JSON.stringify(e);
const omit = (name: string) => Object.fromEntries(Object.entries(event).filter(([k]) => k !== name));

describe('envelopeOf', () => {
  it.each([
    ['a plain JSON body', JSON_TYPE, { iuid: 'abcdef' }, { kind: 'plain' }],
    ['a body with no content type', {}, undefined, { kind: 'plain' }],
    ['a whole binary CloudEvent', binary, { iuid: 'abcdef' }, { kind: 'event', mode: 'binary' }],
    ['a whole structured CloudEvent', structuredType, structured(event), { kind: 'event', mode: 'structured' }],
    [
      'a structured CloudEvent with a charset',
      { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      structured(event),
      { kind: 'event', mode: 'structured' },
    ],
    [
      'a structured CloudEvent as bytes',
      structuredType,
      new TextEncoder().encode(structured(event)),
      { kind: 'event', mode: 'structured' },
    ],
  ])('%s', (_n, headers, body, expected) => {
    expect(envelopeOf(headers, body)).toEqual(expected);
  });

  it.each([
    ['binary without ce-id', without('ce-id'), /^binary CloudEvent: missing required attribute id \(header ce-id\)$/],
    ['binary without ce-source', without('ce-source'), /missing required attribute source \(header ce-source\)$/],
    ['binary without ce-type', without('ce-type'), /missing required attribute type \(header ce-type\)$/],
    [
      'some ce-* headers but no ce-specversion',
      without('ce-specversion'),
      /missing required attribute specversion \(header ce-specversion\)$/,
    ],
    [
      'a lone ce-* header',
      { ...JSON_TYPE, 'ce-subject': 'x' },
      /missing required attributes specversion \(header ce-specversion\), id \(header ce-id\), source \(header ce-source\), type \(header ce-type\)$/,
    ],
    [
      'ce-specversion 9.9',
      { ...binary, 'ce-specversion': '9.9' },
      /^binary CloudEvent: specversion "9.9" is not supported, only "1.0"$/,
    ],
    ['ce-specversion 0.3', { ...binary, 'ce-specversion': '0.3' }, /specversion "0.3" is not supported/],
    ['an empty ce-id', { ...binary, 'ce-id': '' }, /attribute id \(header ce-id\) must be a non-empty string/],
  ])('refuses %s, naming the attribute', (_n, headers, reason) => {
    expect(envelopeOf(headers, '{}')).toEqual({ kind: 'malformed', reason: expect.stringMatching(reason) });
  });

  it.each([
    [
      'no specversion',
      structured(omit('specversion')),
      /^structured CloudEvent: missing required attribute specversion$/,
    ],
    ['no id', structured(omit('id')), /missing required attribute id$/],
    ['no source and no type', structured({ specversion: '1.0', id: 'x' }), /missing required attributes source, type$/],
    ['specversion 9.9', structured({ ...event, specversion: '9.9' }), /specversion "9.9" is not supported/],
    ['a numeric id', structured({ ...event, id: 5 }), /attribute id must be a non-empty string/],
    ['a body that is not JSON', '{"id":', /^structured CloudEvent: the body is not JSON$/],
    ['a JSON array', '[1]', /the body must be a JSON object/],
  ])('refuses a structured CloudEvent with %s', (_n, body, reason) => {
    expect(envelopeOf(structuredType, body)).toEqual({ kind: 'malformed', reason: expect.stringMatching(reason) });
  });

  it('refuses batches and other structured formats', () => {
    expect(envelopeOf({ 'content-type': 'application/cloudevents-batch+json' }, '[]')).toEqual({
      kind: 'malformed',
      reason: expect.stringMatching(/batched CloudEvents are not supported/),
    });
    expect(envelopeOf({ 'content-type': 'application/cloudevents+avro' }, '')).toEqual({
      kind: 'malformed',
      reason: expect.stringMatching(/media type "application\/cloudevents\+avro" are not supported/),
    });
  });

  it('a structured CloudEvent is told by its content type, whatever ce-* headers come with it', () => {
    expect(envelopeOf({ ...structuredType, 'ce-id': 'x' }, structured(event))).toEqual({
      kind: 'event',
      mode: 'structured',
    });
  });
});
