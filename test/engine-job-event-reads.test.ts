// What a Job event costs the function in API requests, counted exactly from
// the API server's audit log (local/cluster/audit-policy.yaml) under the
// function's own ServiceAccount: a running Job's add and update make none, a
// finished Job's first event reads the run once (no list) and hands over to
// the next step, and its later events (the same update again, its deletion)
// make none in that process. No ApiServerSource stand-in runs: the test
// delivers each Job event itself, from the Job as the API server holds it.
import { randomUUID } from 'node:crypto';
import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark, countByClient, type ClientRequests } from '../local/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => { await h?.stop(); h = undefined; });

const RUN = `${SCENARIO}-abcde`;

/**
 * The function's requests logged after `mark`, up to a request the test makes
 * itself after every reply it waited for (the audit log is written in order),
 * once `events` Kubernetes Events (written beside the reply) are in.
 */
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

function deliver(url: string, change: 'add' | 'update' | 'delete', job: V1Job) {
  const ev = binaryEvent(`dev.knative.apiserver.resource.${change}`, job);
  return post(url, ev.body, ev.headers);
}

describe('Job events and API reads', () => {
  it('a running Job\'s events make no request; a finished Job\'s first event reads the run once; its later events none', async () => {
    const modules = [imageModule('a', {}, { delayMs: 0 }), imageModule('b', {}, { delayMs: 600_000 })];
    h = await cascadeHarness({ modules, from: 'file', source: false });
    const started = auditMark(auditLogOf(adminKubeconfigPath()));
    const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
    expect((await post(h.url(), start.body, start.headers)).status).toBe(200);

    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const done = await waitFor(async () => {
      const job = await batch.readNamespacedJob({ name: `${SCENARIO}-a-abcde`, namespace: h!.ns });
      return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? job : undefined;
    }, { message: 'Job a complete' });
    const running: V1Job = { ...done, status: { ...done.status, conditions: [], completionTime: undefined, succeeded: 0, active: 1 } };
    // The run start's own Event (ModuleStarted of a) is in before counting starts.
    await functionRequests(h.ns, started, 1);

    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    for (const change of ['add', 'update', 'update'] as const) expect((await deliver(h.url(), change, running)).status).toBe(200);
    expect(await functionRequests(h.ns, mark, 0)).toEqual({ reads: 0, writes: 0, events: 0, byVerb: {} });
    expect((await h.getRun(RUN)).status?.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending']);

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver(h.url(), 'update', done)).status).toBe(200);
    expect((await deliver(h.url(), 'update', done)).status).toBe(200);
    expect((await deliver(h.url(), 'delete', done)).status).toBe(200);
    const handOver = await functionRequests(h.ns, mark, 1);
    expect(handOver.byVerb).toEqual({
      'cascaderuns get': 1, 'jobs create': 1, 'cascaderuns/status update': 1, 'jobs delete': 1, 'events create': 1,
    });
    expect((await h.getRun(RUN)).status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running']);
    await waitFor(async () => (await batch.readNamespacedJob({ name: `${SCENARIO}-b-abcde`, namespace: h!.ns })).metadata?.name, { message: 'Job b created' });
  });
});
