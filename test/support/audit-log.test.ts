import { describe, expect, it } from 'vitest';
import { countByClient, perUnitRequests } from './audit-log.ts';

const line = (
  id: string,
  user: string,
  verb: string,
  resource?: string,
  subresource?: string,
  stage = 'ResponseComplete',
) =>
  JSON.stringify({
    kind: 'Event',
    auditID: id,
    stage,
    verb,
    user: { username: user },
    ...(resource ? { objectRef: { resource, subresource } } : {}),
  });

const FN = 'system:serviceaccount:ns:cascade-function';
const SRC = 'system:serviceaccount:ns:cascade-apiserversource';

describe('countByClient', () => {
  it("counts each client's requests by verb: reads, writes, Kubernetes Events apart", () => {
    const lines = [
      line('1', FN, 'get', 'cascaderuns'),
      line('2', FN, 'update', 'cascaderuns', 'status'),
      line('3', FN, 'create', 'jobs'),
      line('4', FN, 'create', 'events'),
      line('5', FN, 'list', 'jobs'),
      line('6', SRC, 'watch', 'jobs', undefined, 'ResponseStarted'),
      line('6', SRC, 'watch', 'jobs', undefined, 'ResponseComplete'),
      line('7', 'system:serviceaccount:kube-system:job-controller', 'update', 'jobs', 'status'),
      '{"cut in the mid',
      '',
    ];
    expect(countByClient(lines, { function: FN, source: SRC })).toEqual({
      function: {
        reads: 2,
        writes: 2,
        events: 1,
        byVerb: {
          'cascaderuns get': 1,
          'cascaderuns/status update': 1,
          'jobs create': 1,
          'events create': 1,
          'jobs list': 1,
        },
      },
      source: { reads: 1, writes: 0, events: 0, byVerb: { 'jobs watch': 1 } },
    });
  });

  it('divides per unit', () => {
    expect(perUnitRequests({ reads: 6, writes: 3, events: 0, byVerb: { 'jobs list': 6 } }, 3)).toEqual({
      reads: 2,
      writes: 1,
      events: 0,
      byVerb: { 'jobs list': 2 },
    });
  });
});
