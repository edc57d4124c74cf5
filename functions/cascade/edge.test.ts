import { describe, expect, it } from 'vitest';
import { inputOfEvent, isInput, readRequest } from './edge.ts';
import { NOT_AN_OBJECT } from './plain-body.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const run = { turlinfo: 's3://in/x.tgz', iuid: 'abcdef' };
const binary = {
  ...JSON_TYPE,
  'ce-specversion': '1.0',
  'ce-id': 'e1',
  'ce-source': '/test',
  'ce-type': 'net.cascade.run.requested.v1',
};
const job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'j', labels: { 'cascade.cascade.net/run': 'r' } },
};

describe('readRequest', () => {
  it('a plain body becomes its input, not a delivery', () => {
    const read = readRequest(JSON_TYPE, run);
    expect(read).toMatchObject({
      kind: 'input',
      input: { request: { kind: 'run', body: run }, eventId: undefined, delivery: false },
    });
    expect(read.kind === 'input' && isInput(read.input)).toBe(true);
  });

  it("a plain body that is no run request becomes an invalid input, answered 400 by the engine's reply", () => {
    expect(readRequest({}, undefined)).toMatchObject({
      kind: 'input',
      input: { request: { kind: 'invalid', reason: NOT_AN_OBJECT } },
    });
  });

  it('a binary event the fast path reads becomes its input, a delivery with its id', () => {
    expect(readRequest(binary, run)).toMatchObject({
      kind: 'input',
      input: { request: { kind: 'run', body: run }, eventId: 'e1', delivery: true },
    });
  });

  it("the ApiServerSource's Job event, time and extensions included, becomes a job input", () => {
    const headers = {
      ...binary,
      'ce-type': 'dev.knative.apiserver.resource.update',
      'ce-source': 'https://10.96.0.1:443',
      'ce-time': '2026-12-01T15:04:05Z',
      'ce-kind': 'Job',
      'ce-name': 'j',
      'ce-namespace': 'ns',
    };
    expect(readRequest(headers, job)).toMatchObject({
      kind: 'input',
      input: { request: { kind: 'job', runname: 'r', job: 'j', change: 'update' }, eventId: 'e1' },
    });
  });

  it('an event the fast path does not read is left to the SDK', () => {
    expect(readRequest({ ...binary, 'ce-dataschema': 'https://x.example/s' }, run)).toEqual({ kind: 'sdk-event' });
    const structured = JSON.stringify({ specversion: '1.0', id: 's', source: '/t', type: 'x', data: run });
    expect(readRequest({ 'content-type': 'application/cloudevents+json' }, structured)).toEqual({ kind: 'sdk-event' });
  });

  it('a malformed CloudEvent and a JSON string are refused with their reason', () => {
    expect(readRequest({ ...JSON_TYPE, 'ce-id': 'e1' }, run)).toEqual({
      kind: 'refused',
      reason:
        'binary CloudEvent: missing required attributes specversion (header ce-specversion), source (header ce-source), type (header ce-type)',
    });
    expect(readRequest(JSON_TYPE, 'text')).toEqual({ kind: 'refused', reason: NOT_AN_OBJECT });
  });
});

describe('inputOfEvent', () => {
  it('an event the SDK read becomes its input, a delivery with its id', () => {
    expect(inputOfEvent({ id: 'e2', type: 'net.cascade.run.requested.v1', data: run })).toMatchObject({
      request: { kind: 'run' },
      eventId: 'e2',
      delivery: true,
    });
  });
});

describe('isInput', () => {
  it('tells an input of this module from a body that looks like one', () => {
    expect(isInput({ request: { kind: 'run' }, eventId: undefined, delivery: false })).toBe(false);
    expect(isInput(null)).toBe(false);
  });
});
