// Cancelling a run (README "Cancel"), against the real control plane with the
// function as a real process behind the Broker stand-in and the
// ApiServerSource stand-in: at each step of a three-step run, by CloudEvent
// and by plain body, by run name and by iuid, with kubectl's annotation (and
// with its event missed: the janitor applies it), twice, after the run ended,
// and racing the last step's completion.
import { HTTP, type CloudEventV1 } from 'cloudevents';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { RUN_CANCEL_REQUESTED } from '../shared/api/events.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT, jobName } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import {
  cascadeHarness,
  COUNTERS_SETTLE,
  type Harness,
  type HarnessOptions,
  post,
  SCENARIO,
} from './support/cascade-harness.ts';
import { janitorDeps, janitorKubeconfig } from './support/janitor.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { kubectl } from './support/ops.ts';
import { recordingSink, type SinkRequest } from './support/recording-sink.ts';

const MODULES = ['grayscale', 'binarization', 'diff'];
const batch = adminKubeConfig().makeApiClient(BatchV1Api);
const core = adminKubeConfig().makeApiClient(CoreV1Api);

let h: Harness | undefined;
let sink: Awaited<ReturnType<typeof recordingSink>> | undefined;
afterEach(async () => {
  await h?.stop();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

/** Modules that run until they are stopped (10 minutes), unless a result ends their step. */
async function setUp(opts: Partial<HarnessOptions> = {}) {
  sink = await recordingSink();
  h = await cascadeHarness({ modules: successScenario(600_000), ...opts, env: { K_SINK: sink.url, ...opts.env } });
  return { h, sink };
}

async function startRun(h: Harness, iuid: string): Promise<string> {
  const reply = await post(h.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid });
  expect(reply.status).toBe(200);
  return String(reply.body.run);
}

const jobOf = (run: string, step: number) => jobName(SCENARIO, run, MODULES, step);

/**
 * Runs the first `step` steps to their end by results: the run's step `step`
 * is running. A result is `recorded` rather than `applied` when its first
 * decision created the next Job and lost the status write to another
 * replica's: decided again, that Job had already ended the step.
 */
async function reach(h: Harness, run: string, step: number): Promise<void> {
  for (const m of MODULES.slice(0, step)) {
    const reply = await post(h.url(), { runname: run, modulename: m, moduleresult: 'success' });
    expect(reply.status).toBe(200);
    expect(['applied', 'recorded']).toContain(reply.body.verdict);
  }
  if (step < MODULES.length) await h.recorded([jobOf(run, step)]);
}

async function jobExists(ns: string, name: string): Promise<boolean> {
  return batch.readNamespacedJob({ name, namespace: ns }).then(
    () => true,
    () => false,
  );
}

async function podsOf(ns: string, job: string): Promise<number> {
  return (await core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` })).items.length;
}

/** What a cancelled run must look like, cancelled at `step`: Job and pods gone, no later Job, status, counters, run-end event. */
async function expectCancelledAt(
  h: Harness,
  sink: Awaited<ReturnType<typeof recordingSink>>,
  run: string,
  step: number,
): Promise<CascadeRun> {
  const ended = await h.waitEnded(run);
  expect(ended.status).toMatchObject({
    phase: 'Cancelled',
    info: 'Cancelled',
    currentStep: step,
    currentModule: MODULES[step],
    slotReleased: true,
    notified: true,
  });
  expect(ended.status?.conditions?.find((c) => c.type === 'Succeeded')).toMatchObject({
    status: 'False',
    reason: 'Cancelled',
  });
  expect(ended.status?.modules?.map((m) => m.phase)).toEqual(
    MODULES.map((_m, i) => (i < step ? 'Succeeded' : i === step ? 'Cancelled' : 'Pending')),
  );
  await waitFor(
    async () => !(await jobExists(h.ns, jobOf(run, step))) && (await podsOf(h.ns, jobOf(run, step))) === 0,
    { timeoutMs: 60_000, message: `Job ${jobOf(run, step)} and its pods gone` },
  );
  for (let later = step + 1; later < MODULES.length; later++) {
    expect(h.jobs.has(jobOf(run, later)), `no Job for step ${later}`).toBe(false);
    expect(await jobExists(h.ns, jobOf(run, later))).toBe(false);
  }
  const events = sink.received.filter((r) => r.status === 200 && asEvent(r).subject === run);
  expect(events.map((r) => asEvent(r)).map((e) => [e.id, e.type])).toEqual([
    [`${ended.metadata.uid}-cancelled`, 'net.cascade.run.cancelled.v1'],
  ]);
  expect(events[0]!.data).toMatchObject({ runname: run, phase: 'Cancelled', reason: 'Cancelled' });
  return ended;
}

function asEvent(r: SinkRequest): CloudEventV1<unknown> {
  const event = HTTP.toEvent({ headers: r.headers, body: r.body });
  if (Array.isArray(event)) throw new Error('a batch');
  return event;
}

describe('cancel', () => {
  it('at each step of a three-step run, by CloudEvent and plain body, by run name and iuid: the Job and its pods go, nothing later starts, the counters count it cancelled', async () => {
    const { h, sink } = await setUp();
    const iuids = ['ca0c1-step-0', 'ca0c2-step-1', 'ca0c3-step-2'];
    const runs = await Promise.all(iuids.map((iuid) => startRun(h, iuid)));
    await Promise.all(runs.map((run, step) => reach(h, run, step)));

    // Step 1 by CloudEvent through the Broker, by run name.
    expect(await h.deliver(RUN_CANCEL_REQUESTED, { runname: runs[0] })).toBe(202);
    await expectCancelledAt(h, sink, runs[0]!, 0);
    // Step 2 by CloudEvent, by iuid.
    expect(await h.deliver(RUN_CANCEL_REQUESTED, { iuid: iuids[1] })).toBe(202);
    await expectCancelledAt(h, sink, runs[1]!, 1);
    // Step 3 by plain body, by iuid: the reply says what became of it.
    expect(await post(h.url(), { action: 'cancel', iuid: iuids[2] })).toEqual({
      status: 200,
      body: { run: runs[2], phase: 'Cancelled', verdict: 'cancelled' },
    });
    await expectCancelledAt(h, sink, runs[2]!, 2);

    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({
        active: 0,
        succeeded: 0,
        failed: 0,
        cancelled: 3,
        result: 'Cancelled',
      });
    // The stopped module's late result is recorded; nothing starts.
    expect(await post(h.url(), { runname: runs[0], modulename: 'grayscale', moduleresult: 'success' })).toMatchObject({
      status: 200,
      body: { verdict: 'recorded', phase: 'Cancelled' },
    });
    expect(h.jobs.has(jobOf(runs[0]!, 1))).toBe(false);
  });

  it('twice, and after the run ended: nothing changes, and the reply says so', async () => {
    const { h, sink } = await setUp();
    const run = await startRun(h, 'ca1c1-twice');
    await reach(h, run, 1);
    expect(await post(h.url(), { action: 'cancel', runname: run })).toEqual({
      status: 200,
      body: { run, phase: 'Cancelled', verdict: 'cancelled' },
    });
    const cancelled = await expectCancelledAt(h, sink, run, 1);
    expect(await post(h.url(), { action: 'cancel', runname: run })).toEqual({
      status: 200,
      body: { run, phase: 'Cancelled', verdict: 'already-finished' },
    });
    expect(await h.deliver(RUN_CANCEL_REQUESTED, { runname: run })).toBe(202);

    const done = await startRun(h, 'ca1c2-done');
    await reach(h, done, 3);
    const succeeded = await h.waitEnded(done);
    expect(await post(h.url(), { action: 'cancel', iuid: 'ca1c2-done' })).toEqual({
      status: 200,
      body: { run: done, phase: 'Succeeded', verdict: 'already-finished' },
    });
    // Unknown runs are refused, as for a module result.
    expect(await post(h.url(), { action: 'cancel', runname: 'no-such-run' })).toEqual({
      status: 400,
      body: { error: 'unknown run "no-such-run"' },
    });
    expect(await post(h.url(), { action: 'cancel', iuid: 'zzzzz-none' })).toEqual({
      status: 400,
      body: { error: 'no run of iuid "zzzzz-none"' },
    });

    // The CloudEvent was delivered (200) and changed nothing either.
    await waitFor(() => h.broker.attempts.some((a) => a.type === RUN_CANCEL_REQUESTED && a.status === 200), {
      message: 'the second cancel delivered',
    });
    expect((await h.getRun(run)).metadata.resourceVersion).toBe(cancelled.metadata.resourceVersion);
    expect((await h.getRun(done)).metadata.resourceVersion).toBe(succeeded.metadata.resourceVersion);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({
        active: 0,
        succeeded: 1,
        failed: 0,
        cancelled: 1,
        result: 'Success',
      });
    expect(
      sink.received
        .filter((r) => r.status === 200)
        .map((r) => asEvent(r).type)
        .sort(),
    ).toEqual(['net.cascade.run.cancelled.v1', 'net.cascade.run.succeeded.v1']);
  });

  it("with kubectl annotate: the CascadeRun's event carries the request; handled once, recorded in status", async () => {
    const { h, sink } = await setUp();
    const run = await startRun(h, 'ca2c1-kubectl');
    await reach(h, run, 1);
    const at = '2026-11-30T15:00:00Z';
    await kubectl('-n', h.ns, 'annotate', 'cascaderun', run, `${ANNOTATION_CANCEL_REQUESTED_AT}=${at}`, '--overwrite');
    const ended = await expectCancelledAt(h, sink, run, 1);
    expect(ended.status?.lastHandledCancel).toBe(at);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, cancelled: 1 });

    // On a finished run, a new value changes nothing but is recorded handled.
    const done = await startRun(h, 'ca2c2-done');
    await reach(h, done, 3);
    await h.waitEnded(done);
    await kubectl('-n', h.ns, 'annotate', 'cascaderun', done, `${ANNOTATION_CANCEL_REQUESTED_AT}=${at}`, '--overwrite');
    const handled = await waitFor(
      async () => {
        const r = await h.getRun(done);
        return r.status?.lastHandledCancel === at ? r : undefined;
      },
      { message: 'the request on the finished run recorded handled' },
    );
    expect(handled.status?.phase).toBe('Succeeded');
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, cancelled: 1 });
  });

  it('with kubectl annotate, its event missed: the janitor applies it', async () => {
    const { h, sink } = await setUp({ source: false });
    const run = await startRun(h, 'ca3c1-missed');
    await reach(h, run, 2);
    const at = '2026-11-30T15:10:00Z';
    await kubectl('-n', h.ns, 'annotate', 'cascaderun', run, `${ANNOTATION_CANCEL_REQUESTED_AT}=${at}`, '--overwrite');
    expect((await h.getRun(run)).status?.phase, 'no event: nothing happened').toBe('Running');

    const deps = janitorDeps(await janitorKubeconfig(h.ns), { ...h.env, K_SINK: sink.url });
    const summary = await sweep(deps, new Date());
    expect(summary).toMatchObject({ runsHandled: 1, finished: 1, errors: 0, active: 0 });
    const swept = await h.getRun(run);
    expect(swept.status).toMatchObject({ phase: 'Cancelled', lastHandledCancel: at, currentStep: 2 });
    expect(deps.events.map((e) => [e.id, e.type])).toEqual([
      [`${swept.metadata.uid}-cancelled`, 'net.cascade.run.cancelled.v1'],
    ]);
    await waitFor(async () => !(await jobExists(h.ns, jobOf(run, 2))), { message: 'the Job gone' });
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, cancelled: 1 });
    // Handled: the next sweep leaves the run alone.
    expect(await sweep(deps, new Date())).toMatchObject({ runsHandled: 0 });
  });
});

type Reply = Awaited<ReturnType<typeof post>>;

/** The run ended one way, and both replies say the same. */
function expectOneOutcome(run: CascadeRun, result: Reply, cancel: Reply): void {
  const phase = run.status?.phase;
  expect(['Succeeded', 'Cancelled']).toContain(phase);
  expect(result.status).toBe(200);
  expect(cancel).toEqual({
    status: 200,
    body: { run: run.metadata.name, phase, verdict: phase === 'Cancelled' ? 'cancelled' : 'already-finished' },
  });
  expect(result.body.verdict).toBe(phase === 'Succeeded' ? 'applied' : 'recorded');
  expect(run.status?.modules?.[2]?.phase).toBe(phase);
}

describe("a cancel racing the last step's completion", () => {
  it('ends each run in exactly one outcome, on two replicas, with exact counters and one run-end event per run', async () => {
    const { h, sink } = await setUp({ replicas: 2 });
    const N = 12;
    const iuids = Array.from({ length: N }, (_v, i) => `cr${String(i).padStart(3, '0')}-race`);
    const runs = await Promise.all(iuids.map((iuid) => startRun(h, iuid)));
    await Promise.all(runs.map((run) => reach(h, run, 2)));

    // The last module's result and the cancel at once, on different replicas.
    const replies = await Promise.all(
      runs.map((run, i) =>
        Promise.all([
          post(h.url(i % 2), { runname: run, modulename: 'diff', moduleresult: 'success' }),
          post(h.url((i + 1) % 2), { action: 'cancel', runname: run }),
        ]),
      ),
    );
    const outcomes = await Promise.all(runs.map((run) => h.waitEnded(run)));
    for (const [i, run] of outcomes.entries()) expectOneOutcome(run, ...replies[i]!);
    const phases = outcomes.map((r) => r.status?.phase);
    const count = (p: string) => phases.filter((x) => x === p).length;
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({
        active: 0,
        succeeded: count('Succeeded'),
        failed: 0,
        cancelled: count('Cancelled'),
      });

    // One run-end event per run, of its outcome: sent at least once, always with the same id.
    const delivered = sink.received.filter((r) => r.status === 200).map(asEvent);
    for (const run of outcomes) {
      const type = run.status?.phase === 'Succeeded' ? 'net.cascade.run.succeeded.v1' : 'net.cascade.run.cancelled.v1';
      const sent = new Set(delivered.filter((e) => e.subject === run.metadata.name).map((e) => `${e.id} ${e.type}`));
      expect([...sent]).toEqual([`${run.metadata.uid}-${run.status?.phase?.toLowerCase()} ${type}`]);
    }
    // No Job of any run is left, and none was ever created past the last step.
    await waitFor(
      async () =>
        (await batch.listNamespacedJob({ namespace: h.ns })).items.filter((j) => !j.metadata?.deletionTimestamp)
          .length === 0,
      { timeoutMs: 60_000, message: 'every Job gone' },
    );
    expect([...h.jobs.keys()].length).toBe(N * 3);
    console.log(`race outcomes: ${count('Succeeded')} succeeded, ${count('Cancelled')} cancelled`);
  });
});
