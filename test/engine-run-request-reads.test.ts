// What a run request costs the function in API requests, counted exactly from
// the API server's audit log under the function's own ServiceAccount: the
// first of a fresh process reads the CascadeAutoOperator once, for its
// finalizer and scenario, and the counter write starts from that copy; the
// next ones read it once too and write from the copy the process last wrote.
// No ApiServerSource stand-in runs: nothing but the run requests reaches the function.
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark, countByClient, type ClientRequests } from '../local/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => { await h?.stop(); h = undefined; });

/** The function's requests logged after `mark`, once `events` Kubernetes Events (written beside the reply) are in, up to a request of the test's own. */
async function functionRequests(ns: string, mark: number, events: number): Promise<ClientRequests> {
  const log = auditLogOf(adminKubeconfigPath());
  const clients = { fn: serviceAccountUser(ns, 'cascade-function') };
  await waitFor(() => countByClient(auditLinesSince(log, mark), clients).fn!.events >= events || undefined, { message: `${events} Event(s) recorded` });
  const barrier = `barrier-${randomUUID().slice(0, 8)}`;
  await adminKubeConfig().makeApiClient(CoreV1Api).readNamespacedConfigMap({ name: barrier, namespace: ns }).catch(() => undefined);
  const lines = await waitFor(() => {
    const all = auditLinesSince(log, mark);
    const at = all.findIndex((l) => l.includes(barrier));
    return at >= 0 ? all.slice(0, at) : undefined;
  }, { message: 'the barrier request in the audit log' });
  return countByClient(lines, clients).fn!;
}

async function runRequest(iuid: string) {
  const ev = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid });
  const res = await post(h!.url(), ev.body, ev.headers);
  expect(res.status).toBe(200);
}

describe('run requests and API reads', () => {
  it('the first run request of a fresh process reads the operator once; the next ones once each too', async () => {
    h = await cascadeHarness({ modules: [imageModule('a', {}, { delayMs: 600_000 })], source: false });
    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await runRequest('abcde001');
    expect((await functionRequests(h.ns, mark, 1)).byVerb).toEqual({
      'cascadeautooperators get': 1, 'cascadeautooperators update': 1, 'cascaderuns create': 1, 'jobs create': 1,
      'cascadeautooperators/status update': 1, 'cascaderuns/status update': 1, 'events create': 1,
    });

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await runRequest('fghij002');
    expect((await functionRequests(h.ns, mark, 1)).byVerb).toEqual({
      'cascadeautooperators get': 1, 'cascaderuns create': 1, 'jobs create': 1,
      'cascadeautooperators/status update': 1, 'cascaderuns/status update': 1, 'events create': 1,
    });
    const op = await h.operator();
    expect(op.status?.active).toBe(2);
    await waitFor(async () => ((await h!.listRuns()).length === 2) || undefined, { message: 'two runs' });
  });
});
