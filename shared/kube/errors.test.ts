import { describe, expect, it } from 'vitest';
import { apiErrorKind, apiMessage } from './errors.ts';
import { ApiError } from './rest.ts';

/** A network error as node:https reports it: a string code, no HTTP status. */
function networkError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('Kubernetes API errors, classified at the boundary', () => {
  it.each([
    [
      'the API server is down (connection refused)',
      networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'),
      'transient',
    ],
    [
      'the connection was cut mid-request (the API server stopped)',
      networkError('ECONNRESET', 'socket hang up'),
      'transient',
    ],
    ['no answer in time', new Error('GET /apis/x: timed out'), 'transient'],
    [
      'etcd unavailable behind the API server (500)',
      new ApiError(500, 'PUT', '/x', '{"message":"etcdserver: request timed out"}'),
      'transient',
    ],
    ['the API server not ready (503)', new ApiError(503, 'GET', '/x', ''), 'transient'],
    ['a request that timed out in the API server (504)', new ApiError(504, 'POST', '/x', ''), 'transient'],
    ['throttled (429)', new ApiError(429, 'POST', '/x', ''), 'transient'],
    ['a write from a stale resourceVersion, or a name taken (409)', new ApiError(409, 'PUT', '/x', ''), 'conflict'],
    ['gone (404)', new ApiError(404, 'GET', '/x', ''), 'not-found'],
    ['expired (410)', new ApiError(410, 'GET', '/x', ''), 'not-found'],
    ['refused as invalid (422)', new ApiError(422, 'POST', '/x', ''), 'invalid'],
    ['a bad request (400)', new ApiError(400, 'POST', '/x', ''), 'invalid'],
    ['not allowed (403)', new ApiError(403, 'POST', '/x', ''), 'refused'],
    ['not authenticated (401)', new ApiError(401, 'POST', '/x', ''), 'refused'],
  ])('%s: %s', (_name, error, kind) => {
    expect(apiErrorKind(error)).toBe(kind);
  });

  it('says what the API server said, else the error itself', () => {
    expect(apiMessage(new ApiError(500, 'PUT', '/x', '{"message":"etcdserver: request timed out"}'))).toBe(
      'etcdserver: request timed out',
    );
    expect(apiMessage(networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'))).toBe(
      'connect ECONNREFUSED 127.0.0.1:6443',
    );
  });
});
