import { describe, expect, it } from 'vitest';
import type { Attempt } from '../local/stand-ins/broker/dispatch.ts';
import { MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import {
  arrivals,
  busiest,
  conflictsByVerb,
  cpuMsPer,
  operatorRequests,
  perSecond,
  repliesByKind,
} from './sustained-figures.ts';
import { sustainedSettings } from './sustained.ts';

describe('arrivals', () => {
  it('spaces a rate evenly over the duration', () => {
    expect(arrivals({ rate: 4, durationMs: 1000 })).toEqual([0, 250, 500, 750]);
    expect(arrivals({ rate: 5, durationMs: 60_000 })).toHaveLength(300);
  });
  it('sends a burst all at once', () => {
    expect(arrivals({ burst: 3 })).toEqual([0, 0, 0]);
  });
});

describe('perSecond', () => {
  it('counts the times inside [from, to) per second', () => {
    expect(perSecond([0, 500, 1999, 2000, 2500], 0, 2000)).toBe(1.5);
  });
  it('is 0 over an empty window', () => {
    expect(perSecond([1, 2], 5, 5)).toBe(0);
  });
});

const attempt = (type: string, status: number | undefined, route = 'cascade-run-requests'): Attempt => ({
  route,
  id: 'x',
  type,
  attempt: 1,
  target: 'http://f',
  status,
  outcome: 'delivered',
});

describe('repliesByKind', () => {
  it('counts 429 and 5xx apart for run requests and progress, a missing answer as 5xx', () => {
    const r = repliesByKind([
      attempt(RUN_REQUESTED, 200),
      attempt(RUN_REQUESTED, 429),
      attempt(MODULE_FINISHED, 503),
      attempt('dev.knative.apiserver.resource.update', undefined),
      attempt('dev.knative.apiserver.resource.update', 429),
      attempt('dev.knative.apiserver.resource.update', 200),
      attempt(MODULE_FINISHED, 500, 'cascade-results dead-letter sink'),
    ]);
    expect(r).toEqual({
      runRequests: { attempts: 2, r429: 1, r5xx: 0 },
      progress: { attempts: 4, r429: 1, r5xx: 2 },
    });
  });
});

describe('busiest and cpuMsPer', () => {
  it('names the process with the most CPU', () => {
    expect(busiest({ function: 0.3, 'kube-apiserver': 1.1, etcd: 0.2 })).toEqual({
      name: 'kube-apiserver',
      cores: 1.1,
    });
    expect(busiest({})).toBeUndefined();
  });
  it('divides CPU time by transitions', () => {
    expect(cpuMsPer(0.5, 10, 1000)).toBe(5);
    expect(cpuMsPer(0.5, 10, 0)).toBeUndefined();
  });
});

describe('operatorRequests', () => {
  const line = (id: string, user: string, verb: string, resource: string, sub?: string, code = 200) =>
    JSON.stringify({
      auditID: id,
      verb,
      user: { username: user },
      objectRef: { resource, subresource: sub },
      responseStatus: { code },
    });
  it('counts status writes, their 409s and the reads of the operator, once per audit ID', () => {
    const fn = 'system:serviceaccount:ns:cascade-function';
    const lines = [
      line('1', fn, 'update', 'cascadeautooperators', 'status', 409),
      line('1', fn, 'update', 'cascadeautooperators', 'status', 409),
      line('2', fn, 'get', 'cascadeautooperators'),
      line('3', fn, 'update', 'cascadeautooperators', 'status'),
      line('4', fn, 'create', 'jobs'),
      line('5', 'someone-else', 'update', 'cascadeautooperators', 'status', 409),
      '{"cut',
      '',
    ];
    expect(operatorRequests(lines, fn)).toEqual({ requests: 4, statusWrites: 2, conflicts: 1, reads: 1 });
  });
  it('counts every 409 of the user by resource and verb', () => {
    const fn = 'system:serviceaccount:ns:cascade-function';
    const lines = [
      line('1', fn, 'update', 'cascadeautooperators', 'status', 409),
      line('1', fn, 'update', 'cascadeautooperators', 'status', 409),
      line('2', fn, 'update', 'cascaderuns', 'status', 409),
      line('3', fn, 'update', 'cascaderuns', 'status', 409),
      line('4', fn, 'create', 'jobs', undefined, 409),
      line('5', fn, 'update', 'cascaderuns', 'status'),
      line('6', 'someone-else', 'update', 'cascaderuns', 'status', 409),
    ];
    expect(conflictsByVerb(lines, fn)).toEqual({
      'cascadeautooperators/status update': 1,
      'cascaderuns/status update': 2,
      'jobs create': 1,
    });
  });
});

describe('sustainedSettings', () => {
  it('takes the rates, the seconds and the bursts from the environment', () => {
    expect(sustainedSettings({}, false)).toEqual({ rates: [5, 10, 20], seconds: 60, bursts: [50, 200] });
    expect(sustainedSettings({}, true).seconds).toBe(20);
    expect(
      sustainedSettings(
        { BENCH_SUSTAINED_RATES: '2,40', BENCH_SUSTAINED_SECONDS: '5', BENCH_SUSTAINED_BURSTS: '' },
        true,
      ),
    ).toEqual({ rates: [2, 40], seconds: 5, bursts: [] });
  });
});
