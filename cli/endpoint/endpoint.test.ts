import { describe, expect, it } from 'vitest';
import { clusterLocalHint, discoverEndpoint, isClusterLocal } from './discover.ts';
import { CANCEL_REQUESTED, controlOutcome, controlRequest, RESUME_REQUESTED } from './run-control.ts';
import { submitReply, submitRequest } from './submit-request.ts';

const ready = (extra: object) => ({ status: { conditions: [{ type: 'Ready', status: 'True' }], ...extra } });

describe('the URL without --url', () => {
  it("is the Knative Service's status.url once it is Ready", () => {
    expect(
      discoverEndpoint(
        ready({ url: 'http://cascade.ns.svc.cluster.local' }),
        ready({ address: { url: 'http://broker/ns/default' } }),
        'ns',
      ),
    ).toEqual({ ok: true, endpoint: { kind: 'function', url: 'http://cascade.ns.svc.cluster.local' } });
  });

  it("else the Broker's address", () => {
    const notReady = {
      status: {
        url: 'http://x',
        conditions: [{ type: 'Ready', status: 'False', reason: 'RevisionFailed', message: 'boom' }],
      },
    };
    expect(discoverEndpoint(notReady, ready({ address: { url: 'http://broker/ns/default' } }), 'ns')).toEqual({
      ok: true,
      endpoint: { kind: 'broker', url: 'http://broker/ns/default' },
    });
    expect(discoverEndpoint(undefined, ready({ address: { url: 'http://b' } }), 'ns')).toMatchObject({
      endpoint: { kind: 'broker' },
    });
  });

  it('else none, saying why of each', () => {
    const notReady = {
      status: {
        url: 'http://x',
        conditions: [{ type: 'Ready', status: 'False', reason: 'RevisionFailed', message: 'boom' }],
      },
    };
    expect(discoverEndpoint(notReady, { status: {} }, 'ns')).toEqual({
      ok: false,
      reason:
        'no URL to send to in namespace ns (Knative Service cascade: Ready is False (RevisionFailed: boom); Broker default: no Ready condition yet): give one with --url',
    });
    expect(discoverEndpoint(undefined, undefined, 'ns')).toEqual({
      ok: false,
      reason: 'no URL to send to in namespace ns (no Knative Service cascade; no Broker default): give one with --url',
    });
  });
});

describe('submit', () => {
  const fn = { kind: 'function', url: 'http://f' } as const;
  const broker = { kind: 'broker', url: 'http://b' } as const;

  it('posts a plain body to the function and a binary CloudEvent to the Broker', () => {
    expect(submitRequest(fn, { iuid: 'i1', turlinfo: 's3://x' })).toEqual({
      headers: { 'content-type': 'application/json' },
      body: '{"turlinfo":"s3://x","iuid":"i1"}',
    });
    const ce = submitRequest(broker, { iuid: 'i1', turlinfo: 's3://x', scenario: 'other' }, 'id-1');
    expect(ce.headers).toEqual({
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': 'id-1',
      'ce-source': '/kubectl-cascade',
      'ce-type': 'net.cascade.run.requested.v1',
    });
    expect(JSON.parse(ce.body)).toEqual({ turlinfo: 's3://x', iuid: 'i1', scenario: 'other' });
  });

  it("reads the run's name from the function's reply, and a refusal's reason", () => {
    expect(
      submitReply(fn, { iuid: 'i', turlinfo: 't' }, 200, '{"run":"demo-i","phase":"Running","scenario":"demo"}'),
    ).toEqual({ ok: true, run: 'demo-i', scenario: 'demo' });
    expect(submitReply(fn, { iuid: 'i', turlinfo: 't' }, 400, '{"error":"iuid: must be ..."}')).toEqual({
      ok: false,
      message: 'run request refused: 400 iuid: must be ...',
    });
    expect(submitReply(fn, { iuid: 'i', turlinfo: 't' }, 200, '')).toEqual({
      ok: false,
      message: 'the reply names no run: 200',
    });
    expect(submitReply(broker, { iuid: 'i', turlinfo: 't' }, 202, '')).toEqual({ ok: true });
  });

  it('says when the deployment ran another scenario than --scenario asked for', () => {
    expect(
      submitReply(fn, { iuid: 'i', turlinfo: 't', scenario: 'other' }, 200, '{"run":"demo-i","scenario":"demo"}'),
    ).toMatchObject({
      ok: true,
      run: 'demo-i',
      warning: 'this deployment does not take --scenario yet: the run was started with scenario demo, not other',
    });
    expect(
      submitReply(fn, { iuid: 'i', turlinfo: 't', scenario: 'demo' }, 200, '{"run":"demo-i","scenario":"demo"}'),
    ).not.toHaveProperty('warning');
  });

  it("reads the reply's scenario source: CascadeAutoOperator/<name> is <name>, a file names none", () => {
    const reply = (scenario: string) =>
      submitReply(fn, { iuid: 'i', turlinfo: 't', scenario: 'slow' }, 200, JSON.stringify({ run: 'slow-i', scenario }));
    expect(reply('CascadeAutoOperator/slow')).not.toHaveProperty('warning');
    expect(reply('file:/etc/cascade/configuration.json')).not.toHaveProperty('warning');
    expect(reply('CascadeAutoOperator/demo')).toMatchObject({
      warning: 'this deployment does not take --scenario yet: the run was started with scenario demo, not slow',
    });
  });

  it('reads the namespace the function created the run in', () => {
    expect(
      submitReply(fn, { iuid: 'i', turlinfo: 't' }, 200, '{"run":"demo-i","namespace":"cascade-operator"}'),
    ).toEqual({ ok: true, run: 'demo-i', namespace: 'cascade-operator' });
  });
});

describe('cancel and resume', () => {
  it('are CloudEvents of the contract in binary mode, data {runname}', () => {
    expect(controlRequest('cancel', 'r1', 'id-1')).toEqual({
      headers: {
        'content-type': 'application/json',
        'ce-specversion': '1.0',
        'ce-id': 'id-1',
        'ce-source': '/kubectl-cascade',
        'ce-type': CANCEL_REQUESTED,
      },
      body: '{"runname":"r1"}',
    });
    expect(controlRequest('resume', 'r1').headers['ce-type']).toBe(RESUME_REQUESTED);
    expect(controlRequest('resume', 'r1').headers['ce-id']).not.toBe(controlRequest('resume', 'r1').headers['ce-id']);
  });

  it('a 200 is done; a 400 for the event type means the function predates run control; other refusals are named', () => {
    expect(controlOutcome('cancel', 200, '')).toEqual({ ok: true });
    expect(
      controlOutcome('cancel', 400, '{"error":"unsupported event type \\"net.cascade.run.cancel.requested.v1\\""}'),
    ).toMatchObject({
      ok: false,
      unavailable: true,
      message: expect.stringMatching(/^run control is not available yet on this deployment/),
    });
    expect(controlOutcome('resume', 400, '{"error":"unknown run r1"}')).toEqual({
      ok: false,
      unavailable: false,
      message: 'resume refused: 400 unknown run r1',
    });
    expect(controlOutcome('resume', 503, 'busy')).toEqual({
      ok: false,
      unavailable: false,
      message: 'resume refused: 503 busy',
    });
  });
});

describe('a cluster-local URL', () => {
  it("is a Service's DNS name, which only pods reach", () => {
    expect(isClusterLocal('http://cascade.cascade-operator.svc.cluster.local')).toBe(true);
    expect(isClusterLocal('http://broker-ingress.knative-eventing.svc/ns/default')).toBe(true);
    expect(isClusterLocal('http://cascade.cascade-operator.example.com')).toBe(false);
    expect(isClusterLocal('http://localhost:8080')).toBe(false);
  });

  it('comes with the ways that work from outside: a port-forward, or the Broker from inside', () => {
    expect(clusterLocalHint('http://cascade.ns.svc.cluster.local', 'ns')).toBe(
      'http://cascade.ns.svc.cluster.local is cluster-local: only pods reach it. ' +
        'From outside the cluster, port-forward to the function (kubectl port-forward -n ns $(kubectl get pod -n ns -l serving.knative.dev/service=cascade -o name | head -1) 8080:8080) ' +
        'and give --url http://localhost:8080, or send the run request to the Broker from inside the cluster',
    );
  });
});
