import { describe, expect, it } from 'vitest';
import { MODULE_FINISHED, RUN_CANCEL_REQUESTED, RUN_RESUME_REQUESTED, RUN_REQUESTED } from '../../shared/api/events.ts';
import { fromCloudEvent, fromHttpBody } from './inputs.ts';

const run = { turlinfo: 's3://in/x.tgz', iuid: '33e65374-ee8e', oname: 'o', sname: 's' };
const result = { runname: 'cao-33e65', modulename: 'grayscale', moduleresult: 'success' };
const job = {
  kind: 'Job',
  metadata: { name: 'cao-grayscale-33e65', labels: { 'cascade.cascade.net/run': 'cao-33e65' } },
};

describe('CloudEvents', () => {
  it.each([
    ['run request', RUN_REQUESTED, run, { kind: 'run', body: run }],
    ['run request as a JSON string', RUN_REQUESTED, JSON.stringify(run), { kind: 'run', body: run }],
    ['run request as bytes', RUN_REQUESTED, new TextEncoder().encode(JSON.stringify(run)), { kind: 'run', body: run }],
    ['module result', MODULE_FINISHED, result, { kind: 'result', body: result }],
    [
      'ApiServerSource update of a Cascade Job with no step label',
      'dev.knative.apiserver.resource.update',
      job,
      { kind: 'job', runname: 'cao-33e65', job: job.metadata.name, change: 'update', observed: undefined },
    ],
    [
      'ApiServerSource delete of a Cascade Job with no step label',
      'dev.knative.apiserver.resource.delete',
      job,
      { kind: 'job', runname: 'cao-33e65', job: job.metadata.name, change: 'delete', observed: undefined },
    ],
    [
      'ApiServerSource event of another Job',
      'dev.knative.apiserver.resource.add',
      { kind: 'Job', metadata: { name: 'x' } },
      { kind: 'ignored', reason: 'Job "x" is not Cascade\'s' },
    ],
    [
      'ApiServerSource event of a Job with an empty run label',
      'dev.knative.apiserver.resource.add',
      { kind: 'Job', metadata: { name: 'x', labels: { 'cascade.cascade.net/run': '' } } },
      { kind: 'ignored', reason: 'Job "x" is not Cascade\'s' },
    ],
  ])('%s', (_n, type, data, expected) => {
    expect(fromCloudEvent({ id: '1', type, data })).toEqual(expected);
  });

  it.each([
    ['unknown type', 'com.example.other', run, /^unsupported event type "com.example.other"$/],
    ['data not JSON', RUN_REQUESTED, '{nope', /run request: the data is not JSON/],
    ['missing iuid', RUN_REQUESTED, { turlinfo: 'x' }, /run request: iuid: required field is missing/],
    ['iuid not a string', RUN_REQUESTED, { turlinfo: 'x', iuid: 5 }, /run request: iuid: must be a string/],
    ['empty turlinfo', RUN_REQUESTED, { turlinfo: '', iuid: 'abcdef' }, /turlinfo: must not be empty/],
    [
      'blank turlinfo',
      RUN_REQUESTED,
      { turlinfo: ' ', iuid: 'abcdef' },
      /turlinfo: must not begin or end with whitespace/,
    ],
    ['an unknown type with a newline', 'com.example\nother', run, /^unsupported event type "com.example\\nother"$/],
    [
      'a Job whose run label names no run',
      'dev.knative.apiserver.resource.add',
      { kind: 'Job', metadata: { name: 'x', labels: { 'cascade.cascade.net/run': '../x' } } },
      /metadata.labels.cascade.cascade.net\/run: must be a run's name/,
    ],
    [
      'result without moduleresult',
      MODULE_FINISHED,
      { runname: 'a', modulename: 'b' },
      /module result: moduleresult: required field is missing/,
    ],
    [
      'a Job whose conditions are not a list',
      'dev.knative.apiserver.resource.update',
      { ...job, status: { conditions: {} } },
      /status.conditions: must be an array/,
    ],
    [
      'ApiServerSource event of a Pod',
      'dev.knative.apiserver.resource.add',
      { kind: 'Pod', metadata: { name: 'p' } },
      /must be a Job/,
    ],
  ])('rejects %s with a reason', (_n, type, data, reason) => {
    const r = fromCloudEvent({ id: '1', type, data });
    expect(r.kind).toBe('invalid');
    expect(r.kind === 'invalid' && r.reason).toMatch(reason);
  });
});

describe('a Job event carries what the core reads of the Job', () => {
  const complete = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'cao-grayscale-33e65',
      uid: 'u-1',
      creationTimestamp: '2026-11-29T11:00:00Z',
      resourceVersion: '9',
      labels: { 'cascade.cascade.net/run': 'cao-33e65', 'cascade.cascade.net/step': '1' },
    },
    spec: { template: {} },
    status: {
      startTime: '2026-11-29T11:00:01Z',
      completionTime: '2026-11-29T11:00:05Z',
      succeeded: 1,
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True', reason: 'CompletionsReached' },
      ],
    },
  };

  it('a finished Job: its step, state and times', () => {
    expect(fromCloudEvent({ id: '1', type: 'dev.knative.apiserver.resource.update', data: complete })).toEqual({
      kind: 'job',
      runname: 'cao-33e65',
      job: 'cao-grayscale-33e65',
      change: 'update',
      observed: {
        name: 'cao-grayscale-33e65',
        uid: 'u-1',
        run: 'cao-33e65',
        step: 1,
        attempt: 1,
        state: 'Succeeded',
        reason: 'CompletionsReached',
        message: undefined,
        startTime: '2026-11-29T11:00:01Z',
        completionTime: '2026-11-29T11:00:05Z',
        deleting: false,
        done: true,
      },
    });
  });

  it('a running Job being deleted', () => {
    const running = {
      ...complete,
      metadata: { ...complete.metadata, deletionTimestamp: '2026-11-29T11:00:03Z' },
      status: {},
    };
    const r = fromCloudEvent({ id: '1', type: 'dev.knative.apiserver.resource.delete', data: running });
    expect(r).toMatchObject({
      kind: 'job',
      change: 'delete',
      observed: { state: 'Active', deleting: true, startTime: '2026-11-29T11:00:00Z' },
    });
  });
});

describe('plain HTTP bodies of the Go controller', () => {
  it('tells a run request from a module result by its fields', () => {
    expect(fromHttpBody(run)).toEqual({ kind: 'run', body: run });
    expect(fromHttpBody({ turlinfo: 'a', iuid: 'bcdefg' })).toEqual({
      kind: 'run',
      body: { turlinfo: 'a', iuid: 'bcdefg' },
    });
    expect(fromHttpBody(result)).toEqual({ kind: 'result', body: result });
  });

  it.each([
    ['no body', undefined, /must be a JSON object/],
    ['an array', [run], /must be a JSON object/],
    ['text', 'hello', /must be a JSON object/],
    ['an empty object', {}, /run request: turlinfo: required field is missing/],
    ['a partial result', { runname: 'r' }, /module result: modulename: required field is missing/],
  ])('rejects %s', (_n, body, reason) => {
    const r = fromHttpBody(body);
    expect(r.kind === 'invalid' && r.reason).toMatch(reason);
  });
});

describe('what arrives is kept byte for byte or refused, never altered', () => {
  it.each([
    ['an iuid with a trailing newline', { turlinfo: 's3://in/x', iuid: 'X\n' }],
    ['an iuid with a leading space', { turlinfo: 's3://in/x', iuid: ' X' }],
    ['a turlinfo with a trailing space', { turlinfo: 's3://in/x ', iuid: 'X' }],
  ])('refuses %s instead of trimming it', (_n, body) => {
    expect(fromHttpBody(body).kind).toBe('invalid');
  });

  it('keeps every field of a valid run request as it came', () => {
    const body = { turlinfo: 's3://in/a b.tgz', iuid: 'AbC9e_x-1', oname: ' org ', sname: '' };
    expect(fromHttpBody(body)).toEqual({ kind: 'run', body });
  });

  it('keeps a module result as it came: the meaning of " Success " is read later, the value stays', () => {
    const body = { runname: 'cao-abc9e', modulename: 'Gray Scale', moduleresult: ' Success ' };
    expect(fromHttpBody(body)).toEqual({ kind: 'result', body });
  });

  it('"X\n" and "X" are never one run: the first is refused, the second kept', () => {
    expect(fromHttpBody({ turlinfo: 's3://x', iuid: 'X\n' }).kind).toBe('invalid');
    expect(fromHttpBody({ turlinfo: 's3://x', iuid: 'X' })).toEqual({
      kind: 'run',
      body: { turlinfo: 's3://x', iuid: 'X' },
    });
  });
});

describe('resume requests', () => {
  it.each([
    [
      'CloudEvent by run name: the event id is the request id',
      () => fromCloudEvent({ id: 'e-1', type: RUN_RESUME_REQUESTED, data: { runname: 'cao-33e65' } }),
      { kind: 'resume', target: { runname: 'cao-33e65' }, requestId: 'e-1' },
    ],
    [
      'CloudEvent by iuid',
      () => fromCloudEvent({ id: 'e-2', type: RUN_RESUME_REQUESTED, data: { iuid: '33e65374-ee8e' } }),
      { kind: 'resume', target: { iuid: '33e65374-ee8e' }, requestId: 'e-2' },
    ],
    [
      'plain body with a requestId',
      () => fromHttpBody({ action: 'resume', runname: 'cao-33e65', requestId: 'mine' }),
      { kind: 'resume', target: { runname: 'cao-33e65' }, requestId: 'mine' },
    ],
    [
      'plain body without one: known by its digest',
      () => fromHttpBody({ action: 'resume', runname: 'cao-33e65' }),
      { kind: 'resume', target: { runname: 'cao-33e65' }, bodyDigest: expect.stringMatching(/^[0-9a-f]{16}$/) },
    ],
  ])('%s', (_n, parse, expected) => {
    expect(parse()).toEqual(expected);
  });

  it.each([
    [
      'both runname and iuid',
      { action: 'resume', runname: 'cao-33e65', iuid: '33e65374-ee8e' },
      /exactly one of runname and iuid/,
    ],
    ['neither', { action: 'resume' }, /exactly one of runname and iuid/],
    ['an unknown action', { action: 'reboot', runname: 'cao-33e65' }, /unknown action "reboot"/],
    ['a run name that is no name', { action: 'resume', runname: 'Not A Name' }, /DNS-1123/],
  ])('refused: %s', (_n, body, reason) => {
    const r = fromHttpBody(body);
    expect(r.kind).toBe('invalid');
    expect(r.kind === 'invalid' && r.reason).toMatch(reason);
  });

  it('the same plain body gives the same digest', () => {
    expect(fromHttpBody({ action: 'resume', iuid: 'abc' })).toEqual(fromHttpBody({ iuid: 'abc', action: 'resume' }));
  });
});

describe('requests to cancel a run', () => {
  const cr = (annotations?: Record<string, string>, status?: Record<string, unknown>) => ({
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeRun',
    metadata: { name: 'cao-33e65', ...(annotations ? { annotations } : {}) },
    ...(status ? { status } : {}),
  });
  const ANNOTATION = 'cascade.cascade.net/cancel-requested-at';

  it.each([
    ['by run name', { runname: 'cao-33e65' }, { kind: 'cancel', target: { runname: 'cao-33e65' } }],
    ['by iuid', { iuid: '33e65374-ee8e' }, { kind: 'cancel', target: { iuid: '33e65374-ee8e' } }],
  ])('a CloudEvent names the run %s', (_n, data, expected) => {
    expect(fromCloudEvent({ id: '1', type: RUN_CANCEL_REQUESTED, data })).toEqual(expected);
  });

  it('a plain body with "action": "cancel" is the same request', () => {
    expect(fromHttpBody({ action: 'cancel', runname: 'cao-33e65' })).toEqual({
      kind: 'cancel',
      target: { runname: 'cao-33e65' },
    });
    expect(fromHttpBody({ action: 'cancel', iuid: '33e65374-ee8e' })).toEqual({
      kind: 'cancel',
      target: { iuid: '33e65374-ee8e' },
    });
  });

  it.each([
    [
      'neither runname nor iuid',
      { action: 'cancel' },
      /cancel request: .*must name the run by exactly one of runname and iuid/,
    ],
    [
      'both runname and iuid',
      { action: 'cancel', runname: 'cao-33e65', iuid: '33e65374' },
      /exactly one of runname and iuid/,
    ],
    ['a run name that names no run', { action: 'cancel', runname: '../x' }, /runname: must be a run's name/],
    ['an iuid out of its rule', { action: 'cancel', iuid: 'x/y' }, /iuid: must be 1-64 characters/],
    [
      'an unknown action',
      { action: 'explode', runname: 'cao-33e65' },
      /^unknown action "explode": must be one of resume, cancel/,
    ],
    ['an action that is no string', { action: 5, runname: 'cao-33e65' }, /^unknown action of type number/],
    [
      'an action named like a property of every object',
      { action: 'toString', runname: 'cao-33e65' },
      /^unknown action "toString"/,
    ],
  ])('refuses %s', (_n, body, reason) => {
    const r = fromHttpBody(body);
    expect(r.kind === 'invalid' && r.reason).toMatch(reason);
  });

  it.each([
    [
      'a cancel annotation not handled yet',
      'update',
      cr({ [ANNOTATION]: 't1' }),
      { kind: 'run-requests', runname: 'cao-33e65' },
    ],
    [
      'a run created with the annotation',
      'add',
      cr({ [ANNOTATION]: 't1' }),
      { kind: 'run-requests', runname: 'cao-33e65' },
    ],
    [
      'a new value after a handled one',
      'update',
      cr({ [ANNOTATION]: 't2' }, { lastHandledCancel: 't1' }),
      { kind: 'run-requests', runname: 'cao-33e65' },
    ],
    [
      "the value handled already (Cascade's own status write)",
      'update',
      cr({ [ANNOTATION]: 't1' }, { lastHandledCancel: 't1', phase: 'Cancelled' }),
      { kind: 'ignored', reason: 'CascadeRun "cao-33e65": no request pending' },
    ],
    [
      'no annotation (a status write)',
      'update',
      cr(undefined, { phase: 'Running' }),
      { kind: 'ignored', reason: 'CascadeRun "cao-33e65": no request pending' },
    ],
    ['a run created, not started yet', 'add', cr(), { kind: 'run-start', runname: 'cao-33e65' }],
    ['a run changed before it started', 'update', cr(undefined, {}), { kind: 'run-start', runname: 'cao-33e65' }],
    [
      'a run deleted before it started',
      'delete',
      cr(),
      { kind: 'ignored', reason: 'CascadeRun "cao-33e65": no request pending' },
    ],
    [
      'a run deleted',
      'delete',
      cr({ [ANNOTATION]: 't1' }),
      { kind: 'ignored', reason: 'CascadeRun "cao-33e65": no request pending' },
    ],
  ])('an ApiServerSource event of a CascadeRun: %s', (_n, verb, data, expected) => {
    expect(fromCloudEvent({ id: '1', type: `dev.knative.apiserver.resource.${verb}`, data })).toEqual(expected);
  });

  it('refuses a CascadeRun event whose name names no run', () => {
    const r = fromCloudEvent({
      id: '1',
      type: 'dev.knative.apiserver.resource.update',
      data: { kind: 'CascadeRun', metadata: { name: 'A/B' } },
    });
    expect(r.kind === 'invalid' && r.reason).toMatch(/ApiServerSource event: metadata.name: must be a run's name/);
  });
});
