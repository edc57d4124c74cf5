import { describe, expect, it } from 'vitest';
import { jobPathStages } from './job-path-stages.ts';

const NS = 'ns-1';
const at = (ms: number) => new Date(Date.UTC(2026, 11, 2, 8, 0, 0, ms)).toISOString().replace('Z', '000Z');

function line(user: string, resource: string, subresource: string, name: string, ms: number, extra = {}): string {
  return JSON.stringify({
    stage: 'ResponseComplete',
    verb: 'update',
    user: { username: user },
    objectRef: { resource, subresource, namespace: NS, name },
    responseStatus: { code: 200 },
    requestReceivedTimestamp: at(ms - 5),
    stageTimestamp: at(ms),
    ...extra,
  });
}

const CTL = 'system:serviceaccount:kube-system:job-controller';

describe("a Job's path, component by component, from the audit log", () => {
  it("times each stage of each Job from its components' writes, refusals and other namespaces left out", () => {
    const lines = [
      line(CTL, 'jobs', 'status', 'run-m0-1', 100),
      line('system:kube-scheduler', 'pods', 'binding', 'run-m0-1-ab12c', 400),
      line('cascade-kwok', 'pods', 'status', 'run-m0-1-ab12c', 1_000),
      line('cascade-kwok', 'pods', 'status', 'run-m0-1-ab12c', 1_500),
      line('cascade-kwok', 'pods', 'status', 'run-m0-1-ab12c', 3_000),
      line(CTL, 'jobs', 'status', 'run-m0-1', 3_200),
      line(CTL, 'jobs', 'status', 'run-m0-1', 3_700),
      // A refused write and another namespace's Job count for nothing.
      line(CTL, 'jobs', 'status', 'run-m0-1', 9_000, { responseStatus: { code: 409 } }),
      line(CTL, 'jobs', 'status', 'other', 50, {
        objectRef: { resource: 'jobs', subresource: 'status', namespace: 'x', name: 'other' },
      }),
      line('system:serviceaccount:ns-1:cascade-function', 'cascadeautooperators', 'status', 's', 5_000),
      line('system:serviceaccount:ns-1:cascade-function', 'cascaderuns', '', 'r', 5_000, { verb: 'create' }),
      line('system:serviceaccount:ns-1:cascade-function', 'jobs', '', 'run-m1-1', 6_000, { verb: 'create' }),
      'not json',
    ];
    const s = jobPathStages(lines, NS);
    expect([s.toKubelet.p50, s.podRun.p50, s.toComplete.p50, s.whole.p50]).toEqual([600, 2_000, 700, 3_300]);
    expect(s.whole.n).toBe(1);
    expect(s.answerMs['operator-status']).toMatchObject({ n: 1, p50: 5 });
    expect(s.answerMs['run-create']).toMatchObject({ n: 1, p50: 5 });
    expect(s.answerMs['job-create']).toMatchObject({ n: 1, p50: 5 });
    expect(s.answerMs['run-status']).toEqual({ n: 0 });
  });
});
