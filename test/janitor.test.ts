// The janitor's sweep against the real control plane: situations that events
// left behind are made directly through the API, then sweep() (in-process,
// acting as the janitor's ServiceAccount) must put them right through the
// engine, the same decisions as the function's.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRunStatus, ModuleRecord } from '../shared/api/cascade-run.ts';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { FINALIZER } from '../shared/api/group.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { jobName, LABEL_RUN, LABEL_STEP } from '../shared/names.ts';
import { imageModule, KWOK_DELAY, successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { createRun, janitorDeps, janitorKubeconfig, type TestDeps } from './support/janitor.ts';
import { adminKubeConfig, apiStatus, waitFor } from './support/kube.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const batch = adminKubeConfig().makeApiClient(BatchV1Api);
const SLOW = [imageModule('slow', { a: 'b' }, { delayMs: 600_000 }), imageModule('after', {}, { delayMs: 0 })];
const NAMES = ['grayscale', 'binarization', 'diff'];

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function setUp(
  modules: CascadeModule[],
): Promise<{ h: Harness; deps: (env?: Record<string, string>) => TestDeps }> {
  h = await cascadeHarness({ modules, source: false });
  const kc = await janitorKubeconfig(h.ns);
  const env = h.env;
  return { h, deps: (extra = {}) => janitorDeps(kc, { ...env, ...extra }) };
}

const job = (module: string, run: string) => `${SCENARIO}-${module}-${run.slice(SCENARIO.length + 1)}`;

function liveJob(ns: string, name: string): Promise<V1Job | undefined> {
  return batch.readNamespacedJob({ name, namespace: ns }).then(
    (j) => (j.metadata?.deletionTimestamp ? undefined : j),
    (e: unknown) => {
      if (apiStatus(e) === 404) return undefined;
      throw e;
    },
  );
}

function jobComplete(ns: string, name: string): Promise<V1Job> {
  return waitFor(
    async () => {
      const j = await liveJob(ns, name);
      return j?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? j : undefined;
    },
    { timeoutMs: 30_000, message: `Job ${name} complete` },
  );
}

async function deleteJobAndWait(ns: string, name: string): Promise<void> {
  await batch.deleteNamespacedJob({ name, namespace: ns, propagationPolicy: 'Background' });
  await waitFor(
    () =>
      batch.readNamespacedJob({ name, namespace: ns }).then(
        () => false,
        (e: unknown) => apiStatus(e) === 404,
      ),
    { message: `Job ${name} gone` },
  );
}

function plainJob(name: string, labels: Record<string, string>): V1Job {
  return {
    metadata: { name, labels },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { annotations: { [KWOK_DELAY]: '600000' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example/x:1' }] },
      },
    },
  };
}

function records(run: string, phases: ModuleRecord['phase'][], at: string): ModuleRecord[] {
  return NAMES.map((name, step) => ({
    step,
    name,
    jobName: jobName(SCENARIO, run, NAMES, step),
    phase: phases[step]!,
    ...(phases[step] === 'Pending' ? {} : { startTime: at, completionTime: at }),
  }));
}

function endedStatus(
  run: string,
  phase: 'Succeeded' | 'Failed',
  completionTime: string,
  notified: boolean,
): CascadeRunStatus {
  return {
    phase,
    completionTime,
    startTime: completionTime,
    notified,
    result: [],
    info: phase === 'Failed' ? 'Failed' : 'final.zip',
    modules: records(
      run,
      phase === 'Succeeded' ? ['Succeeded', 'Succeeded', 'Succeeded'] : ['Succeeded', 'Failed', 'Pending'],
      completionTime,
    ),
  };
}

describe('janitor sweep', () => {
  it('moves a run whose Jobs completed without any event reaching the function, to its end, each Job once', async () => {
    const { h, deps } = await setUp(successScenario(0));
    const d = deps();
    const iuid = 'quiet123-4567';
    const reply = await post(h.url(), { turlinfo: 's3://incoming/in.tgz', iuid });
    expect(reply.status).toBe(200);
    const run = reply.body.run as string;
    // The function goes, as Knative scales it to zero, so no watch of its Jobs moves the run.
    await h.waitStarted(run);
    expect(await h.fns[0]!.stop('SIGTERM')).toBe(0);
    await jobComplete(h.ns, job('grayscale', run));
    // No ApiServerSource and no function: nothing tells a function, the run stays where it was.
    expect((await h.getRun(run)).status?.modules?.map((m) => m.phase)).toEqual(['Running', 'Pending', 'Pending']);

    const first = await sweep(d, new Date());
    expect(first).toMatchObject({
      runsSeen: 1,
      runsHandled: 1,
      advanced: 1,
      failed: {},
      finished: 0,
      active: 1,
      errors: 0,
    });
    expect((await h.getRun(run)).status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);

    await jobComplete(h.ns, job('binarization', run));
    expect(await sweep(d, new Date())).toMatchObject({ advanced: 1, finished: 0, active: 1, errors: 0 });
    await jobComplete(h.ns, job('diff', run));
    expect(await sweep(d, new Date())).toMatchObject({ advanced: 1, finished: 1, active: 0, errors: 0 });

    const ended = await h.getRun(run);
    expect(ended.status).toMatchObject({ phase: 'Succeeded', notified: true });
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0, result: 'Success' });
    expect(d.events.map((e) => e.type)).toEqual(['net.cascade.run.succeeded.v1']);
    const recorded = await h.recorded(NAMES.map((m) => job(m, run)));
    expect([...recorded.keys()].sort()).toEqual(NAMES.map((m) => job(m, run)).sort());
    for (const byUid of recorded.values()) expect(byUid.size).toBe(1);
    expect(await sweep(d, new Date())).toMatchObject({
      runsSeen: 1,
      runsHandled: 0,
      advanced: 0,
      finished: 0,
      errors: 0,
    });
  });

  it('creates the Job of a step that status says is Pending but was never created', async () => {
    const { h, deps } = await setUp(successScenario(600_000));
    const at = new Date().toISOString();
    const run = `${SCENARIO}-pend1`;
    await createRun(h, SCENARIO, {
      iuid: 'pend1-abc',
      modules: successScenario(600_000),
      status: {
        phase: 'Running',
        currentStep: 0,
        currentModule: 'grayscale',
        startTime: at,
        result: [],
        modules: records(run, ['Succeeded', 'Pending', 'Pending'], at),
      },
    });
    expect(await sweep(deps(), new Date())).toMatchObject({ runsSeen: 1, advanced: 1, active: 1, errors: 0 });
    const created = await liveJob(h.ns, job('binarization', run));
    expect(created?.metadata?.labels).toMatchObject({ [LABEL_RUN]: run, [LABEL_STEP]: '1' });
    expect((await h.getRun(run)).status).toMatchObject({
      phase: 'Running',
      currentStep: 1,
      currentModule: 'binarization',
    });
    const jobs = await batch.listNamespacedJob({ namespace: h.ns, labelSelector: `${LABEL_RUN}=${run}` });
    expect(jobs.items.map((j) => j.metadata?.name)).toEqual([job('binarization', run)]);
    expect([...(await h.recorded([job('binarization', run)])).keys()]).toEqual([job('binarization', run)]);
  });

  it('fails a run whose Job is gone (JobMissing), counts and notifies its end', async () => {
    const { h, deps } = await setUp(SLOW);
    const d = deps();
    const run = await createRun(h, SCENARIO, { iuid: 'gone1-abc', modules: SLOW });
    expect(await sweep(d, new Date())).toMatchObject({ advanced: 1, active: 1 });
    // The status was written before the Job: the next look records the Job's uid, so its loss is told from a Job never made.
    expect(await sweep(d, new Date())).toMatchObject({ runsHandled: 1, advanced: 0, active: 1 });
    expect((await h.getRun(run)).status?.modules?.[0]?.jobUid).toBeTruthy();
    await deleteJobAndWait(h.ns, job('slow', run));
    expect(await sweep(d, new Date())).toMatchObject({ failed: { JobMissing: 1 }, finished: 1, active: 0, errors: 0 });
    const ended = await h.getRun(run);
    expect(ended.status).toMatchObject({ phase: 'Failed', info: 'Failed', notified: true });
    expect(ended.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason: 'JobMissing' }),
    );
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ failed: 1, result: 'Fail' });
    expect(d.events.map((e) => [e.type, e.subject])).toEqual([['net.cascade.run.failed.v1', run]]);
  });

  it.each([
    ['Stalled', { CASCADE_STALL_AFTER_SECONDS: '60' }, 120],
    ['DeadlineExceeded', { CASCADE_RUN_TIMEOUT_SECONDS: '300' }, 400],
  ])('fails a run with no progress: %s, keeping its Job', async (reason, env, laterSeconds) => {
    const { h, deps } = await setUp(SLOW);
    const d = deps(env);
    const run = await createRun(h, SCENARIO, { iuid: 'stall-abc', modules: SLOW });
    expect(await sweep(d, new Date())).toMatchObject({ advanced: 1, failed: {} });
    // The next look records the uid of the Job created after the status.
    expect(await sweep(d, new Date())).toMatchObject({ runsHandled: 1, advanced: 0, failed: {} });
    // before the limit its listing shows nothing to do: not read again, not handled
    expect(await sweep(d, new Date(Date.now() + 30_000))).toMatchObject({
      runsHandled: 0,
      advanced: 0,
      failed: {},
      active: 1,
    });
    expect(await sweep(d, new Date(Date.now() + laterSeconds * 1000))).toMatchObject({
      failed: { [reason]: 1 },
      finished: 1,
      active: 0,
    });
    const ended = await h.getRun(run);
    expect(ended.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason }),
    );
    expect(ended.status?.modules?.map((m) => m.phase)).toEqual(['Failed', 'Pending']);
    expect(await liveJob(h.ns, job('slow', run))).toBeDefined();
  });

  it('deletes Jobs whose run is missing or being deleted, and only those', async () => {
    const { h, deps } = await setUp(SLOW);
    const live = await createRun(h, SCENARIO, { iuid: 'live1-abc', modules: SLOW });
    const going = await createRun(h, SCENARIO, {
      iuid: 'going-abc',
      modules: SLOW,
      status: { phase: 'Failed', notified: true },
    });
    const runs = { ...G, namespace: h.ns, plural: 'cascaderuns' };
    await h.custom.patchNamespacedCustomObject({
      ...runs,
      name: going,
      body: [{ op: 'add', path: '/metadata/finalizers', value: ['test.cascade.net/hold'] }],
    });
    await h.custom.deleteNamespacedCustomObject({ ...runs, name: going });
    await batch.createNamespacedJob({
      namespace: h.ns,
      body: plainJob('ghost-job', { [LABEL_RUN]: `${SCENARIO}-ghost` }),
    });
    await batch.createNamespacedJob({ namespace: h.ns, body: plainJob('going-job', { [LABEL_RUN]: going }) });
    await batch.createNamespacedJob({ namespace: h.ns, body: plainJob('not-cascade', { app: 'other' }) });

    const s = await sweep(deps(), new Date());
    expect(s).toMatchObject({ runsSeen: 2, orphanJobsDeleted: 2, advanced: 1, errors: 0 });
    expect(await liveJob(h.ns, 'ghost-job')).toBeUndefined();
    expect(await liveJob(h.ns, 'going-job')).toBeUndefined();
    expect(await liveJob(h.ns, 'not-cascade')).toBeDefined();
    expect(await liveJob(h.ns, job('slow', live))).toBeDefined();
    expect(await sweep(deps(), new Date())).toMatchObject({ orphanJobsDeleted: 0, errors: 0 });
    await h.custom.patchNamespacedCustomObject({
      ...runs,
      name: going,
      body: [{ op: 'remove', path: '/metadata/finalizers' }],
    });
  });

  it('removes finished runs older than CASCADE_RETENTION_SECONDS with their Jobs, after their end is recorded; the counters count the runs left', async () => {
    const { h, deps } = await setUp(successScenario(0));
    const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
    const old = await createRun(h, SCENARIO, {
      iuid: 'old01-abc',
      modules: successScenario(0),
      status: endedStatus(`${SCENARIO}-old01`, 'Failed', ago(7200), true),
    });
    const fresh = await createRun(h, SCENARIO, {
      iuid: 'fresh-abc',
      modules: successScenario(0),
      status: endedStatus(`${SCENARIO}-fresh`, 'Succeeded', ago(60), true),
    });
    const uncounted = await createRun(h, SCENARIO, {
      iuid: 'uncnt-abc',
      modules: successScenario(0),
      status: endedStatus(`${SCENARIO}-uncnt`, 'Succeeded', ago(7200), false),
    });
    await batch.createNamespacedJob({
      namespace: h.ns,
      body: plainJob(job('binarization', old), { [LABEL_RUN]: old, [LABEL_STEP]: '1' }),
    });

    expect(await sweep(deps(), new Date())).toMatchObject({
      runsSeen: 3,
      runsHandled: 1,
      finished: 1,
      runsRemoved: 0,
      errors: 0,
    });
    expect((await h.getRun(uncounted)).status?.notified).toBe(true);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ succeeded: 2, failed: 1 });

    const s = await sweep(deps({ CASCADE_RETENTION_SECONDS: '3600' }), new Date());
    expect(s).toMatchObject({
      runsSeen: 3,
      runsHandled: 2,
      runsRemoved: 2,
      jobsRemovedWithRuns: 1,
      finished: 0,
      errors: 0,
    });
    await expect.poll(async () => (await h.listRuns()).map((r) => r.metadata.name)).toEqual([fresh]);
    expect(await liveJob(h.ns, job('binarization', old))).toBeUndefined();
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('removes the CascadeAutoOperator finalizer once no run is active, as the Go controller did on shutdown', async () => {
    const { h, deps } = await setUp(SLOW);
    const d = deps();
    const ops = { ...G, namespace: h.ns, plural: 'cascadeautooperators', name: SCENARIO };
    await h.custom.patchNamespacedCustomObject({
      ...ops,
      body: [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }],
    });
    const run = await createRun(h, SCENARIO, { iuid: 'fin01-abc', modules: SLOW });
    await sweep(d, new Date());
    await h.custom.deleteNamespacedCustomObject(ops);
    expect((await h.operator()).metadata.deletionTimestamp).toBeDefined();
    expect((await post(h.url(), { turlinfo: 's3://x', iuid: 'later-abc' })).status).toBe(503);

    expect(await sweep(d, new Date())).toMatchObject({ active: 1, finalizerRemoved: false, errors: 0 });
    expect((await h.operator()).metadata.finalizers).toEqual([FINALIZER]);

    await deleteJobAndWait(h.ns, job('slow', run));
    expect(await sweep(d, new Date())).toMatchObject({
      failed: { JobMissing: 1 },
      finished: 1,
      active: 0,
      finalizerRemoved: true,
      errors: 0,
    });
    await waitFor(
      () =>
        h.operator().then(
          () => false,
          (e: unknown) => apiStatus(e) === 404,
        ),
      { message: 'CascadeAutoOperator deleted' },
    );
    expect(await sweep(d, new Date())).toMatchObject({ finalizerRemoved: false, errors: 0 });
  });

  it('two sweeps at once reach the same end as one: each Job created once, each end counted once', async () => {
    const { h, deps } = await setUp(successScenario(0));
    const [a, b] = [deps(), deps()];
    const iuids = ['conc1-abc', 'conc2-abc', 'conc3-abc'];
    const runs = await Promise.all(iuids.map((iuid) => createRun(h, SCENARIO, { iuid, modules: successScenario(0) })));
    const summaries: Awaited<ReturnType<typeof sweep>>[] = [];
    // Two janitors sweep side by side, again and again, until every run ended.
    await waitFor(
      async () => {
        summaries.push(...(await Promise.all([sweep(a, new Date()), sweep(b, new Date())])));
        return (await h.listRuns()).every((r) => r.status?.notified);
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'every run ended' },
    );
    expect(
      summaries
        .map((s) => [s.errors, s.failed])
        .filter(([errors, failed]) => errors !== 0 || Object.keys(failed as object).length > 0),
    ).toEqual([]);
    for (const run of await h.listRuns()) expect(run.status?.phase).toBe('Succeeded');
    const names = runs.flatMap((r) => NAMES.map((m) => job(m, r))).sort();
    const recorded = await h.recorded(names);
    expect([...recorded.keys()].sort()).toEqual(names);
    for (const [name, byUid] of recorded) expect(byUid.size, `Job ${name} created once`).toBe(1);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ succeeded: 3, failed: 0, active: 0 });
    const notified = new Set([...a.events, ...b.events].map((e) => e.id));
    expect(notified.size).toBe(3);
  });
});
