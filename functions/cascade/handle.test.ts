import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/kube/rest.ts';
import { failureOutcome } from './handle.ts';
import { statusOf } from './reply.ts';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });

describe('the reply to a request the engine could not finish', () => {
  it.each([
    [
      'the API server is down',
      refused,
      503,
      'Kubernetes API unavailable, retry: connect ECONNREFUSED 127.0.0.1:6443',
      'unavailable',
    ],
    [
      'etcd is down behind it',
      new ApiError(500, 'PUT', '/x', '{"message":"etcdserver: leader changed"}'),
      503,
      'Kubernetes API unavailable, retry: etcdserver: leader changed',
      'unavailable',
    ],
    [
      'it timed out',
      new ApiError(504, 'POST', '/x', '{"message":"Timeout: request did not complete within requested timeout"}'),
      503,
      'Kubernetes API unavailable, retry: Timeout: request did not complete within requested timeout',
      'unavailable',
    ],
    [
      'a conflict kept coming back',
      new ApiError(409, 'PUT', '/x', '{"message":"the object has been modified"}'),
      503,
      'Kubernetes API unavailable, retry: the object has been modified',
      'unavailable',
    ],
    [
      'the function may not do it',
      new ApiError(403, 'POST', '/x', '{"message":"jobs.batch is forbidden"}'),
      500,
      'jobs.batch is forbidden',
      'failed',
    ],
  ])('%s: %i', (_name, error, status, reason, kind) => {
    const outcome = failureOutcome(error);
    expect(outcome).toEqual({ kind, reason });
    expect(statusOf(outcome)).toBe(status);
  });
});
