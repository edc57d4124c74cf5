// What a Job event costs the function in API requests, counted exactly from
// the API server's audit log (local/cluster/audit-policy.yaml) under the
// function's own ServiceAccount: a running Job's add and update make none. A
// finished Job that this process made hands over to the next step as soon as
// its watch of its Jobs shows it (shared/engine/sync/own-jobs.ts): confirmed
// by that watch, decided from the run as this process last wrote it, so no
// read. The Job's events then make none in that process (the same update
// again, its deletion). A copy another writer made stale is refused at the
// status write and read again, Jobs listed: the end state is as without the
// copy. No ApiServerSource stand-in runs: the test delivers each Job event
// itself, from the Job as the API server holds it, with the attributes the
// real ApiServerSource sets (`time`, and the extensions kind, name, namespace
// and apiversion). Module a takes 3 s, so what the test counts before its end
// is in first. A finished Job's event at a replica that did not make the Job
// waits for its maker's move (shared/engine/sync/made-elsewhere.ts).
import { randomUUID } from 'node:crypto';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { eventHeaders, RESOURCES, type ObjectData, type WatchedResource } from '../local/stand-ins/apiserver-source.ts';
import { auditLinesSince, auditLogOf, auditMark, countByClient } from './support/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';
import { kubectl, parseMetrics, scrape, value } from './support/ops.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const RUN = `${SCENARIO}-abcde`;

/** Posts `obj`'s change as the ApiServerSource sends it, with its attributes (local/stand-ins/apiserver-source.ts). */
function deliverChange(url: string, type: 'add' | 'update' | 'delete', resource: WatchedResource, obj: ObjectData) {
  const change = { type, resource: RESOURCES[resource], obj, source: 'https://10.96.0.1:443' };
  return post(url, obj, eventHeaders(change, randomUUID(), new Date().toISOString()));
}

const deliver = (url: string, change: 'add' | 'update' | 'delete', job: V1Job) =>
  deliverChange(url, change, 'jobs', job);

/** The run's add event: the run as created, with no status. */
function deliverRunAdded(url: string, run: CascadeRun) {
  const created = { ...run, status: undefined };
  return deliverChange(url, 'add', 'cascaderuns', created);
}

describe('Job events and API reads', () => {
  it("a running Job's events make no request; a finished Job hands over from this process's watch, with no read; its events then none", async () => {
    const { batch } = await startRunOfAB(1);
    const running = await batch.readNamespacedJob({ name: `${SCENARIO}-a-abcde`, namespace: h!.ns });
    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    for (const change of ['add', 'update', 'update'] as const)
      expect((await deliver(h!.url(), change, running)).status).toBe(200);
    expect(await functionRequests(h!.ns, mark, 0)).toEqual({ reads: 0, writes: 0, events: 0, byVerb: {} });
    expect((await h!.getRun(RUN)).status?.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending']);

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await jobBCreated(batch);
    const handOver = await functionRequests(h!.ns, mark, 1);
    expect(handOver.byVerb).toEqual({ 'jobs create': 1, 'cascaderuns/status update': 1, 'events create': 1 });
    expect(
      value(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_job_confirmations_total', { from: 'watch' }),
    ).toBe(1);
    expect((await h!.getRun(RUN)).status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running']);

    const done = await jobADone(batch);
    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver(h!.url(), 'update', done)).status).toBe(200);
    expect((await deliver(h!.url(), 'update', done)).status).toBe(200);
    expect((await deliver(h!.url(), 'delete', done)).status).toBe(200);
    expect(await functionRequests(h!.ns, mark, 0)).toEqual({ reads: 0, writes: 0, events: 0, byVerb: {} });
  });

  it("a finished Job's event at a replica that did not make it, before the maker moved: it waits for that move and makes no request", async () => {
    const { batch } = await startRunOfAB(2);
    const [maker, other] = h!.fns;
    // The maker is held still until its Job has finished and the event reached the other replica.
    process.kill(maker!.child.pid!, 'SIGSTOP');
    let reply: Promise<{ status: number }>;
    try {
      const finished = await jobADone(batch);
      const mark = auditMark(auditLogOf(adminKubeconfigPath()));
      reply = deliver(h!.url(1), 'update', finished);
      await new Promise((r) => setTimeout(r, 300));
      process.kill(maker!.child.pid!, 'SIGCONT');
      expect((await reply).status).toBe(200);
      await jobBCreated(batch);
      // Only the maker's hand-off: its status write and Job b, with Job b's Event.
      const { byVerb } = await functionRequests(h!.ns, mark, 1);
      expect(byVerb).toEqual({
        'jobs create': 1,
        'cascaderuns/status update': 1,
        'events create': 1,
      });
    } finally {
      process.kill(maker!.child.pid!, 'SIGCONT');
    }
    const metric = async (fn: typeof maker, name: string, labels?: Record<string, string>) =>
      value(parseMetrics(await scrape(fn!.metricsUrl)), name, labels);
    const started = { kind: 'ModuleStarted' };
    expect([
      await metric(maker, 'cascade_transitions_total', started),
      await metric(other, 'cascade_transitions_total', started),
    ]).toEqual([2, 0]);
    for (const fn of [maker, other]) expect(await metric(fn, 'cascade_status_conflicts_total')).toBe(0);
    expect((await h!.getRun(RUN)).status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running']);
  });

  it("the add event of a run this process started makes no request; another replica looks for the run's first Job, finds it, and makes none", async () => {
    const modules = [imageModule('a', {}, { delayMs: 600_000 })];
    const beforeStart = auditMark(auditLogOf(adminKubeconfigPath()));
    h = await cascadeHarness({ modules, from: 'file', source: false, replicas: 2 });
    await counterHoldBegun(beforeStart, 2);
    const started = auditMark(auditLogOf(adminKubeconfigPath()));
    const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
    expect((await post(h.url(0), start.body, start.headers)).status).toBe(200);
    // The start's own Event (ModuleStarted of a) comes after its Job's create.
    await functionRequests(h.ns, started, 1);
    const run = await h.getRun(RUN);

    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliverRunAdded(h.url(0), run)).status).toBe(200);
    expect(await functionRequests(h.ns, mark, 0)).toEqual({ reads: 0, writes: 0, events: 0, byVerb: {} });

    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliverRunAdded(h.url(1), run)).status).toBe(200);
    const looked = await functionRequests(h.ns, mark, 0);
    expect(looked.byVerb['jobs list']).toBe(1);
    expect(looked.byVerb['jobs create']).toBeUndefined();
    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const jobs = await batch.listNamespacedJob({ namespace: h.ns });
    expect(jobs.items.map((j) => j.metadata?.name)).toEqual([`${SCENARIO}-a-abcde`]);
  });

  it('a copy another writer changed: taken from the watch once it showed the change, else refused at the status write and read again with its Jobs; the hand-off made once', async () => {
    const { batch } = await startRunOfAB(1);
    // Another writer (kubectl) changes the run while Job a runs: this process's copy is stale until its watch of the runs shows it.
    await kubectl('annotate', 'cascaderun', RUN, '-n', h!.ns, 'example.com/touched=yes');
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await jobBCreated(batch);
    const handOver = await functionRequests(h!.ns, mark, 1);
    // The process's conflict count tells which copy the decision started from.
    const conflicts = value(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_status_conflicts_total');
    const refusedOnce = { 'cascaderuns/status update': 2, 'cascaderuns get': 1, 'jobs list': 1 };
    expect(handOver.byVerb).toEqual({
      'jobs create': 1,
      'cascaderuns/status update': 1,
      'events create': 1,
      ...(conflicts === 1 ? refusedOnce : {}),
    });
    expect(conflicts).toBeLessThanOrEqual(1);
    const run = await h!.getRun(RUN);
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running']);
    expect(run.metadata.annotations?.['example.com/touched']).toBe('yes');
    const jobs = await batch.listNamespacedJob({ namespace: h!.ns });
    // Step a's Job is kept until the run ends.
    expect(jobs.items.map((j) => j.metadata?.name).sort()).toEqual([`${SCENARIO}-a-abcde`, `${SCENARIO}-b-abcde`]);
  });

  it('a copy made stale by a cancel on another replica: the Job it decided is removed once the run is read again', async () => {
    const { batch, done } = await runWithModuleADone(2);
    const cancel = binaryEvent('net.cascade.run.cancel.requested.v1', { runname: RUN });
    const cancelled = await post(h!.url(1), cancel.body, cancel.headers);
    expect(cancelled.status).toBe(200);
    const afterCancel = await h!.getRun(RUN);
    expect(afterCancel.status?.phase).toBe('Cancelled');
    // Replica 0 started the run and still holds it as Running at step a.
    expect((await deliver(h!.url(0), 'update', done)).status).toBe(200);
    await waitFor(async () => (await batch.listNamespacedJob({ namespace: h!.ns })).items.length === 0 || undefined, {
      message: 'no Job left',
    });
    const run = await h!.getRun(RUN);
    expect(run.status?.phase).toBe('Cancelled');
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Cancelled']);
    expect(run.status, 'the run as the cancel left it').toEqual(afterCancel.status);
  });
});

/** A run of a (3 s) and b (10 min) started through replica 0, its start's requests in; no source runs. */
async function startRunOfAB(replicas: number, aMs = 3000) {
  const modules = [imageModule('a', {}, { delayMs: aMs }), imageModule('b', {}, { delayMs: 600_000 })];
  const mark = auditMark(auditLogOf(adminKubeconfigPath()));
  h = await cascadeHarness({ modules, from: 'file', source: false, replicas });
  await counterHoldBegun(mark, replicas);
  const started = auditMark(auditLogOf(adminKubeconfigPath()));
  const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
  expect((await post(h.url(0), start.body, start.headers)).status).toBe(200);
  // The start's own Event (ModuleStarted of a) comes after its Job's create.
  await functionRequests(h.ns, started, 1);
  return { batch: adminKubeConfig().makeApiClient(BatchV1Api) };
}

/** Job a, once it is Complete. */
function jobADone(batch: BatchV1Api): Promise<V1Job> {
  return waitFor(
    async () => {
      const job = await batch.readNamespacedJob({ name: `${SCENARIO}-a-abcde`, namespace: h!.ns });
      return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? job : undefined;
    },
    { message: 'Job a complete' },
  );
}

/** Waits until step b's Job exists. */
function jobBCreated(batch: BatchV1Api): Promise<unknown> {
  return waitFor(
    async () =>
      (await batch.readNamespacedJob({ name: `${SCENARIO}-b-abcde`, namespace: h!.ns }).catch(() => undefined))
        ?.metadata?.name,
    { message: 'Job b created' },
  );
}

/** A run of a (done at once) and b (10 min) started through replica 0, its Job a complete; no source runs. */
async function runWithModuleADone(replicas: number) {
  const { batch } = await startRunOfAB(replicas, 0);
  return { batch, done: await jobADone(batch) };
}

/**
 * A replica holds the counters' Lease and has listed the runs, as its hold
 * begins (counts-writer.ts). Waited for before the first run request: the
 * hold's own reads then fall before any request a test counts.
 */
async function counterHoldBegun(mark: number, replicas: number): Promise<void> {
  const holds = async (i: number) =>
    value(parseMetrics(await scrape(h!.fns[i]!.metricsUrl)), 'cascade_counters_writer', {}) === 1;
  const anyHolds = async () => (await Promise.all(Array.from({ length: replicas }, (_, i) => holds(i)))).includes(true);
  await waitFor(async () => (await anyHolds()) || undefined, {
    timeoutMs: 60_000,
    message: "the counters' Lease held",
  });
  const clients = { fn: serviceAccountUser(h!.ns, 'cascade-function') };
  const verbs = (lines: string[]) => countByClient(lines, clients).fn!.byVerb;
  await waitFor(
    () => {
      const lines = auditLinesSince(auditLogOf(adminKubeconfigPath()), mark);
      const taken = lines.findIndex((_, i) => {
        const v = verbs(lines.slice(i, i + 1));
        return Boolean(v['leases create'] ?? v['leases update']);
      });
      return (taken >= 0 && verbs(lines.slice(taken))['cascaderuns list']) || undefined;
    },
    { timeoutMs: 60_000, message: 'the runs listed once the Lease was held' },
  );
}
