// Retries and resume against the real control plane: kwok runs the pods, the
// function runs as a real process, Job changes reach it through the
// ApiServerSource stand-in and the Broker stand-in. A retry's backoff is
// waited out by the function's own wake-up (or the next event): the tests
// wait for states.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRun, CascadeRunStatus, ModuleRecord } from '../shared/api/cascade-run.ts';
import { RUN_RESUME_REQUESTED } from '../shared/api/events.ts';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, OUT, post, SCENARIO } from './support/cascade-harness.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { ANNOTATION_RESUME_REQUESTED_AT } from '../shared/names.ts';
import { createRun, janitorDeps, janitorKubeconfig } from './support/janitor.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { recordingSink } from './support/recording-sink.ts';

const IUID = '7a1b2c3d-0000-4000-8000-000000000001';
const RUN = `${SCENARIO}-7a1b2`;
const LONG = 600_000;
const jobOf = (module: string, attempt = 1) => `${SCENARIO}-${module}-7a1b2${attempt > 1 ? `-a${attempt}` : ''}`;
const stage = (i: number) => `${OUT}${SCENARIO}/${IUID}/${IUID}-stage-${i}.zip`;

let h: Harness | undefined;
let sink: Awaited<ReturnType<typeof recordingSink>> | undefined;
afterEach(async () => {
  await h?.stop();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

function three(second: Partial<CascadeModule> & { fail?: boolean }): CascadeModule[] {
  const { fail, ...rest } = second;
  return [
    imageModule('grayscale', { a: '1' }, { delayMs: LONG }),
    { ...imageModule('binarization', { b: '2' }, { delayMs: LONG, fail: fail ?? false }), ...rest },
    imageModule('diff', { c: '3' }, { delayMs: LONG }),
  ];
}

const result = (h: Harness, module: string, moduleresult: string) =>
  post(h.url(), { runname: RUN, modulename: module, moduleresult });

async function start(h: Harness): Promise<void> {
  expect(await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: IUID })).toMatchObject({
    status: 200,
    body: { run: RUN },
  });
}

function waitRun(h: Harness, what: string, ok: (run: CascadeRun) => boolean): Promise<CascadeRun> {
  return waitFor(
    async () => {
      const run = await h.getRun(RUN);
      return ok(run) ? run : undefined;
    },
    { timeoutMs: 90_000, message: what },
  );
}

function createdOnce(h: Harness, name: string): V1Job {
  const byUid = h.jobs.get(name);
  expect(byUid?.size, `Job ${name} created once`).toBe(1);
  return [...byUid!.values()][0]!;
}

function s3path(job: V1Job): string | undefined {
  return job.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 's3path')?.value;
}

async function liveJobs(h: Harness): Promise<string[]> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  return (await batch.listNamespacedJob({ namespace: h.ns })).items
    .filter((j) => !j.metadata?.deletionTimestamp)
    .map((j) => j.metadata!.name!)
    .sort();
}

describe('retries with backoff', () => {
  it('a step whose module reports failure is run again as attempt 2 after its backoff, and succeeds', async () => {
    h = await cascadeHarness({ modules: three({ retry: { limit: 2, backoffSeconds: 1 } }) });
    await start(h);
    await h.recorded([jobOf('grayscale')]);
    await result(h, 'grayscale', 'success');
    await h.recorded([jobOf('binarization')]);
    expect(await result(h, 'binarization', 'failed')).toMatchObject({
      status: 200,
      body: { verdict: 'applied', phase: 'Running' },
    });
    const retrying = await h.getRun(RUN);
    expect(retrying.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'Unknown', reason: 'Retrying' }),
    );
    expect(retrying.status?.modules?.[1]).toMatchObject({
      phase: 'Pending',
      attempt: 2,
      trigger: 'Retry',
      retryAt: expect.any(String),
    });

    const second = (await h.recorded([jobOf('binarization', 2)])).get(jobOf('binarization', 2))!;
    const job = [...second.values()][0]!;
    expect(job.metadata?.labels).toMatchObject({ 'cascade.cascade.net/step': '1', 'cascade.cascade.net/attempt': '2' });
    expect(s3path(job)).toBe(stage(1));
    await waitRun(h, 'attempt 2 running', (r) => r.status?.modules?.[1]?.phase === 'Running');
    expect(await result(h, 'binarization', 'success')).toMatchObject({ status: 200, body: { verdict: 'applied' } });
    await h.recorded([jobOf('diff')]);
    await result(h, 'diff', 'success');
    const run = await h.waitEnded(RUN, 90_000);
    expect(run.status?.phase).toBe('Succeeded');
    expect(run.status?.modules?.[1]).toMatchObject({
      phase: 'Succeeded',
      attempt: 2,
      trigger: 'Retry',
      result: 'success',
      attempts: [
        expect.objectContaining({
          attempt: 1,
          jobName: jobOf('binarization'),
          phase: 'Failed',
          result: 'failed',
          reason: 'ModuleResultFailed',
          trigger: 'Initial',
        }),
      ],
    });
    expect(run.status?.modules?.[1]?.retryAt).toBeUndefined();
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });
    expect([...h.jobs.keys()].sort()).toEqual(
      [jobOf('binarization'), jobOf('binarization', 2), jobOf('diff'), jobOf('grayscale')].sort(),
    );
    createdOnce(h, jobOf('binarization', 2));
  });

  it('a step whose Job fails every time exhausts its limit: the run fails as without retries', async () => {
    h = await cascadeHarness({
      modules: [
        imageModule('grayscale', {}, { delayMs: 100 }),
        {
          ...imageModule('binarization', {}, { delayMs: 100, fail: true }),
          retry: { limit: 2, backoffSeconds: 1, maxBackoffSeconds: 1 },
        },
        imageModule('diff', {}, { delayMs: 100 }),
      ],
    });
    await start(h);
    const run = await h.waitEnded(RUN, 120_000);
    expect(run.status?.phase).toBe('Failed');
    expect(run.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason: 'ModuleFailed' }),
    );
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Failed', 'Pending']);
    expect(run.status?.modules?.[1]).toMatchObject({ attempt: 3, jobName: jobOf('binarization', 3) });
    expect(run.status?.modules?.[1]?.attempts?.map((a) => [a.attempt, a.phase, a.trigger])).toEqual([
      [1, 'Failed', 'Initial'],
      [2, 'Failed', 'Retry'],
    ]);
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1 });
    for (const attempt of [1, 2, 3]) createdOnce(h, jobOf('binarization', attempt));
    expect(h.jobs.has(jobOf('binarization', 4))).toBe(false);
    expect(h.jobs.has(jobOf('diff'))).toBe(false);
    // The last attempt's Job is kept for inspection; earlier ones go.
    await expect.poll(() => liveJobs(h!), { timeout: 30_000 }).toEqual([jobOf('binarization', 3)]);
  });
});

describe('resume', () => {
  it('a run failed at step 2 of 3 resumes from it: steps before not run again, same stage address, counters exact, a new run-end id', async () => {
    sink = await recordingSink();
    h = await cascadeHarness({ modules: three({}), env: { K_SINK: sink.url } });
    await start(h);
    await h.recorded([jobOf('grayscale')]);
    await result(h, 'grayscale', 'success');
    await h.recorded([jobOf('binarization')]);
    await result(h, 'binarization', 'failed');
    const failed = await h.waitEnded(RUN);
    expect(failed.status?.phase).toBe('Failed');
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1 });
    const uid = failed.metadata.uid!;
    await waitFor(() => sink!.received.some((r) => r.headers['ce-id'] === `${uid}-failed`), {
      message: 'the first failure announced',
    });

    // Resumed by a CloudEvent, delivered twice with one id.
    await h.deliver(RUN_RESUME_REQUESTED, { runname: RUN }, 'resume-1');
    await h.deliver(RUN_RESUME_REQUESTED, { runname: RUN }, 'resume-1');
    await h.recorded([jobOf('binarization', 2)]);
    const resumed = await waitRun(
      h,
      'resumed and running',
      (r) => r.status?.phase === 'Running' && r.status.modules?.[1]?.phase === 'Running',
    );
    expect(resumed.metadata.uid).toBe(uid);
    expect(resumed.status).toMatchObject({ resumes: 1, resumedFrom: 'Failed', resumeRequests: ['resume-1'] });
    expect(resumed.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(resumed.status?.modules?.[1]).toMatchObject({
      attempt: 2,
      trigger: 'Resume',
      attempts: [expect.objectContaining({ attempt: 1, phase: 'Failed', result: 'failed' })],
    });
    await waitFor(async () => (await h!.operator()).status?.active === 1 || undefined, {
      message: 'the resume counted',
    });
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 1, succeeded: 0, failed: 0 });
    expect(s3path(createdOnce(h, jobOf('binarization', 2)))).toBe(stage(1));

    // The same request late (a plain body carrying its id), and a new one while it runs: nothing changes.
    expect(await post(h.url(), { action: 'resume', runname: RUN, requestId: 'resume-1' })).toMatchObject({
      status: 200,
      body: { run: RUN, verdict: 'duplicate' },
    });
    expect(await post(h.url(), { action: 'resume', iuid: IUID })).toMatchObject({
      status: 200,
      body: { run: RUN, phase: 'Running', verdict: 'not-resumable' },
    });
    expect(await post(h.url(), { action: 'resume', runname: 'no-such-run' })).toMatchObject({ status: 400 });

    await result(h, 'binarization', 'success');
    await h.recorded([jobOf('diff')]);
    await result(h, 'diff', 'success');
    const done = await h.waitEnded(RUN, 90_000);
    expect(done.status?.phase).toBe('Succeeded');
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });
    await waitFor(() => sink!.received.some((r) => r.headers['ce-id'] === `${uid}-succeeded-r1`), {
      message: 'the success announced under its own id',
    });
    expect(sink.received.map((r) => r.headers['ce-id'])).not.toContain(`${uid}-succeeded`);

    // Steps before the failed one were not run again: one Job each, no attempt 2.
    createdOnce(h, jobOf('grayscale'));
    expect(h.jobs.has(jobOf('grayscale', 2))).toBe(false);
    expect([...h.jobs.keys()].sort()).toEqual(
      [jobOf('binarization'), jobOf('binarization', 2), jobOf('diff'), jobOf('grayscale')].sort(),
    );
    // Delivered once more after the end: still a duplicate, the end stands.
    await h.deliver(RUN_RESUME_REQUESTED, { runname: RUN }, 'resume-1');
    expect(await post(h.url(), { action: 'resume', runname: RUN, requestId: 'resume-1' })).toMatchObject({
      status: 200,
      body: { verdict: 'duplicate', phase: 'Succeeded' },
    });
    expect((await h.getRun(RUN)).status).toMatchObject({ phase: 'Succeeded', resumes: 1 });
  });
});

describe('the janitor: retries whose wake-up was missed, resumes asked with kubectl', () => {
  const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
  const T0 = '2026-11-30T10:00:00Z';
  const modules = three({ retry: { limit: 3, backoffSeconds: 30 } });
  const rec = (step: number, phase: ModuleRecord['phase'], extra: Partial<ModuleRecord> = {}): ModuleRecord => ({
    step,
    name: modules[step]!.modulename,
    jobName: jobOf(modules[step]!.modulename),
    phase,
    ...(phase === 'Pending' ? {} : { startTime: T0, completionTime: T0 }),
    ...extra,
  });
  const status = (phase: CascadeRunStatus['phase'], records: ModuleRecord[]): CascadeRunStatus => ({
    phase,
    startTime: T0,
    modules: records,
    result: [],
    conditions: [
      {
        type: 'Succeeded',
        status: phase === 'Failed' ? 'False' : 'Unknown',
        reason: phase === 'Failed' ? 'ModuleFailed' : 'Retrying',
        message: 'm',
        lastTransitionTime: T0,
      },
    ],
    ...(phase === 'Failed' ? { completionTime: T0, info: 'Failed', slotReleased: true, notified: true } : {}),
  });

  async function setUp() {
    h = await cascadeHarness({ modules, source: false });
    const deps = janitorDeps(await janitorKubeconfig(h.ns), h.env);
    return { h, deps };
  }

  it('a retry due while no process watched it: the sweep creates its Job', async () => {
    const { h, deps } = await setUp();
    const attempts = [
      {
        attempt: 1,
        jobName: jobOf('binarization'),
        phase: 'Failed' as const,
        trigger: 'Initial' as const,
        startTime: T0,
        completionTime: T0,
      },
    ];
    const waiting = rec(1, 'Pending', {
      attempt: 2,
      trigger: 'Retry',
      jobName: jobOf('binarization', 2),
      attempts,
      retryAt: '2026-11-30T10:00:30Z',
    });
    const name = await createRun(h, SCENARIO, {
      iuid: IUID,
      modules,
      status: status('Running', [rec(0, 'Succeeded'), waiting, rec(2, 'Pending')]),
    });
    expect(name).toBe(RUN);
    // Before its time, nothing; after it, attempt 2's Job.
    await sweep(deps, new Date('2026-11-30T10:00:29Z'));
    expect(await liveJobs(h)).toEqual([]);
    await sweep(deps, new Date('2026-11-30T10:00:31Z'));
    expect(await liveJobs(h)).toEqual([jobOf('binarization', 2)]);
    expect((await h.getRun(RUN)).status?.modules?.[1]).toMatchObject({ phase: 'Running', attempt: 2 });
  });

  it('kubectl annotate resume-requested-at: the sweep resumes the failed run once per value', async () => {
    const { h, deps } = await setUp();
    const failedAt1 = status('Failed', [
      rec(0, 'Succeeded'),
      rec(1, 'Failed', { reason: 'ModuleFailed' }),
      rec(2, 'Pending'),
    ]);
    await createRun(h, SCENARIO, { iuid: IUID, modules, status: failedAt1 });
    const runs = { ...G, namespace: h.ns, plural: 'cascaderuns', name: RUN };
    const annotate = (value: string) =>
      h.custom.patchNamespacedCustomObject({
        ...runs,
        body: [{ op: 'add', path: '/metadata/annotations', value: { [ANNOTATION_RESUME_REQUESTED_AT]: value } }],
      });
    await annotate('2026-11-30T10:05:00Z');
    const now = new Date();
    expect(await sweep(deps, now)).toMatchObject({ errors: 0 });
    const resumed = await h.getRun(RUN);
    expect(resumed.status).toMatchObject({
      phase: 'Running',
      resumes: 1,
      lastHandledResume: '2026-11-30T10:05:00Z',
      resumeRequests: ['annotation:2026-11-30T10:05:00Z'],
    });
    expect(resumed.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(await liveJobs(h)).toEqual([jobOf('binarization', 2)]);
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 1, failed: 0 });
    // Swept again: handled already, nothing more.
    await sweep(deps, now);
    expect((await h.getRun(RUN)).status).toMatchObject({ resumes: 1 });
    expect(await liveJobs(h)).toEqual([jobOf('binarization', 2)]);
  });
});
