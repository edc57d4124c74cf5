// Forged Job events, as a hostile in-cluster client could post them to the
// Broker, against the real control plane. A Job event moves a run only when
// its Job is the one Cascade created for that step: the step's name, the uid
// recorded by the first look that listed it, and the state the API server
// holds. Anything else is ignored, logged and counted in
// cascade_ignored_jobs_total{reason}. No ApiServerSource stand-in runs: the
// test delivers each event itself.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLogOf, auditMark } from './support/audit-log.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { janitorEnv, runJanitorProcess } from './support/janitor.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';
import { parseMetrics, scrape, value } from './support/ops.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const RUN = `${SCENARIO}-abcde`;
const JOB_A = `${SCENARIO}-a-abcde`;
const JOB_B = `${SCENARIO}-b-abcde`;

function deliver(change: 'add' | 'update' | 'delete', job: V1Job) {
  const ev = binaryEvent(`dev.knative.apiserver.resource.${change}`, job);
  return post(h!.url(), ev.body, ev.headers);
}

const FINISHED = {
  conditions: [
    { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached' },
    { type: 'Complete', status: 'True', reason: 'CompletionsReached' },
  ],
  succeeded: 1,
  active: 0,
  startTime: new Date(),
  completionTime: new Date(),
};

/** A run of a (10 min) and b, its Job a running: the step a real Job holds. */
async function runningAtA() {
  const modules = [imageModule('a', {}, { delayMs: 600_000 }), imageModule('b', {}, { delayMs: 0 })];
  h = await cascadeHarness({ modules, from: 'file', source: false });
  const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
  expect((await post(h.url(), start.body, start.headers)).status).toBe(200);
  // The reply leaves once the run exists: the status starting step a, then its Job, follow.
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const real = await waitFor(() => batch.readNamespacedJob({ name: JOB_A, namespace: h!.ns }).catch(() => undefined), {
    message: 'the Job of step a created',
  });
  // The status was written before the Job: the first look that lists the Job, a sweep, records its uid.
  const swept = await runJanitorProcess(await janitorEnv(h.ns));
  expect(swept.code, swept.stderr).toBe(0);
  return { batch, real };
}

/**
 * The function's calls on Jobs and on single runs. Its lists of every run
 * (the gauges' periodic count) come and go with time, so they are left out.
 */
function jobAndRunCalls(requests: { byVerb: Record<string, number> }): Record<string, number> {
  return Object.fromEntries(
    Object.entries(requests.byVerb).filter(
      ([verb]) =>
        !verb.endsWith(' watch') &&
        (verb.startsWith('jobs') || (verb.startsWith('cascaderuns') && verb !== 'cascaderuns list')),
    ),
  );
}

async function ignored(reason: string): Promise<number> {
  return value(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_ignored_jobs_total', { reason });
}

/** The run has not moved: step a running on its real Job, no Job for b. */
async function notMoved(batch: BatchV1Api): Promise<void> {
  const run = await h!.getRun(RUN);
  expect(run.status?.phase).toBe('Running');
  expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending']);
  const jobs = await batch.listNamespacedJob({ namespace: h!.ns });
  expect(jobs.items.map((j) => j.metadata?.name)).toEqual([JOB_A]);
  expect(jobs.items[0]?.metadata?.deletionTimestamp).toBeUndefined();
}

describe('forged Job events', () => {
  it('records the uid of the Job it created for the step, at the first look that lists the Job', async () => {
    const { real } = await runningAtA();
    expect(real.metadata?.uid).toBeTruthy();
    expect((await h!.getRun(RUN)).status?.modules?.[0]?.jobUid).toBe(real.metadata?.uid);
  });

  it("a finished Job with the run's label, a made-up name and uid, no owner: ignored, counted, no API call", async () => {
    const { batch, real } = await runningAtA();
    const forged: V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'forged-job',
        namespace: h!.ns,
        uid: '00000000-0000-4000-8000-000000000001',
        labels: { ...real.metadata?.labels },
      },
      status: FINISHED,
    };
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver('update', forged)).status).toBe(200);
    expect((await deliver('delete', forged)).status).toBe(200);
    await notMoved(batch);
    expect(await ignored('unknown-name')).toBe(2);
    // Decided from the run this process wrote: the forged name is refused before any read of a Job or the run.
    expect(jobAndRunCalls(await functionRequests(h!.ns, mark, 0))).toEqual({});
  });

  it("the real Job's name and uid with an invented finished status: one read of the Job refutes it", async () => {
    const { batch, real } = await runningAtA();
    const forged: V1Job = { ...real, status: { ...real.status, ...FINISHED } };
    let mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver('update', forged)).status).toBe(200);
    await notMoved(batch);
    expect(await ignored('unconfirmed')).toBe(1);
    // One read of the Job refutes the claim. The sweep that recorded the Job's uid made this process's
    // copy of the run stale, unless its watch of the runs showed the sweep's write first. Stale, recording
    // the uid again, its write is refused, and the run is read once: the conflict count tells which.
    const conflicts = value(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_status_conflicts_total');
    expect(jobAndRunCalls(await functionRequests(h!.ns, mark, 0))).toEqual({
      'jobs get': 1,
      ...(conflicts === 1 ? { 'cascaderuns/status update': 1, 'cascaderuns get': 1 } : {}),
    });
    expect(conflicts).toBeLessThanOrEqual(1);
    // The refuted claim is not remembered as the Job's: a second copy is read again, and refuted again.
    mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver('update', forged)).status).toBe(200);
    await notMoved(batch);
    expect(await ignored('unconfirmed')).toBe(2);
    expect(jobAndRunCalls(await functionRequests(h!.ns, mark, 0))).toEqual({ 'jobs get': 1 });
  });

  it('a delete event for the real Job while it still runs: refuted, the step keeps its Job', async () => {
    const { batch, real } = await runningAtA();
    expect((await deliver('delete', real)).status).toBe(200);
    await notMoved(batch);
    expect(await ignored('unconfirmed')).toBe(1);
  });

  it("the real Job's name with another uid: ignored as another Job", async () => {
    const { batch, real } = await runningAtA();
    const forged: V1Job = {
      ...real,
      metadata: { ...real.metadata, uid: '00000000-0000-4000-8000-000000000002' },
      status: FINISHED,
    };
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect((await deliver('update', forged)).status).toBe(200);
    await notMoved(batch);
    // Its name and uid say "another Job" to the function's copy of the run once its watch of the runs, open since
    // the first sync, showed the uid the sweep recorded: nothing is read. A copy still stale takes the Job on its
    // name: the read that would act on it finds the real one, and the write recording its uid is refused. The
    // conflict count tells which.
    const conflicts = value(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_status_conflicts_total');
    const calls = jobAndRunCalls(await functionRequests(h!.ns, mark, 0));
    expect(conflicts).toBeLessThanOrEqual(1);
    const stale = conflicts === 1;
    expect({ 'other-uid': await ignored('other-uid'), unconfirmed: await ignored('unconfirmed'), calls }).toEqual({
      'other-uid': stale ? 0 : 1,
      unconfirmed: stale ? 1 : 0,
      calls: stale ? { 'jobs get': 1, 'cascaderuns/status update': 1, 'cascaderuns get': 1 } : {},
    });
    expect(await ignored('unknown-name')).toBe(0);
  });

  it('the real Job, once it really finished: its event moves the run, as the API server confirms', async () => {
    const modules = [imageModule('a', {}, { delayMs: 0 }), imageModule('b', {}, { delayMs: 600_000 })];
    h = await cascadeHarness({ modules, from: 'file', source: false });
    const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
    expect((await post(h.url(), start.body, start.headers)).status).toBe(200);
    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const done = await waitFor(
      async () => {
        const job = await batch.readNamespacedJob({ name: JOB_A, namespace: h!.ns });
        return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? job : undefined;
      },
      { message: 'Job a complete' },
    );
    expect((await deliver('update', done)).status).toBe(200);
    const run = await h.getRun(RUN);
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running']);
    // Job b was decided from this process's cached copy: its status was written first, with no uid yet;
    // the next write that sees Job b records it (docs/architecture.md#one-job-per-step-attempt).
    expect(run.status?.modules?.[1]?.jobUid).toBeUndefined();
    expect((await batch.readNamespacedJob({ name: JOB_B, namespace: h.ns })).metadata?.uid).toBeTruthy();
    for (const reason of ['unknown-name', 'other-uid', 'unconfirmed']) expect(await ignored(reason)).toBe(0);
  });
});
