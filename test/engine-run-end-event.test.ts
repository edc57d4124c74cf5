// The run-end CloudEvent to K_SINK (README: sent by the CloudEvents SDK after
// the reply, owed in the run's status until the sink takes it, sent again by a
// redelivery or the janitor, with an id stable per run and outcome), with the
// function and the janitor as real processes and a sink that records every
// request, refuses as many as the test asks, or holds them unanswered.
import { HTTP, type CloudEventV1 } from 'cloudevents';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { FUNCTION_SINK_POLICY } from '../shared/engine/sink/sink.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, OUT, post, SCENARIO } from './support/cascade-harness.ts';
import { janitorEnv, runJanitorProcess } from './support/janitor.ts';
import { waitFor } from './support/kube.ts';
import { recordingSink, type SinkRequest } from './support/recording-sink.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const MODULES = ['grayscale', 'binarization', 'diff'];
const OVERRIDES = JSON.stringify({ extensions: { cluster: 'test', team: 'cascade' } });
let h: Harness | undefined;
let sink: Awaited<ReturnType<typeof recordingSink>> | undefined;
afterEach(async () => {
  await h?.stop();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

async function setUp() {
  sink = await recordingSink();
  h = await cascadeHarness({
    modules: successScenario(600_000),
    source: false,
    env: { K_SINK: sink.url, K_CE_OVERRIDES: OVERRIDES, LOG_LEVEL: 'info' },
  });
  return { h, sink };
}

async function startRun(h: Harness, iuid: string): Promise<string> {
  const reply = await post(h.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid, oname: 'org', sname: 'src' });
  expect(reply.status).toBe(200);
  return String(reply.body.run);
}

/** A module result as a plain HTTP post (the Go controller's body). */
function result(h: Harness, run: string, module: string, moduleresult: string) {
  return post(h.url(), { runname: run, modulename: module, moduleresult });
}

async function resultsUpTo(h: Harness, run: string, modules: string[]): Promise<void> {
  for (const m of modules)
    expect(await result(h, run, m, 'success')).toMatchObject({ status: 200, body: { verdict: 'applied' } });
}

/** The request as the CloudEvents SDK reads it back: it must be one valid binary-mode event. */
function asEvent(r: SinkRequest): CloudEventV1<unknown> {
  expect(HTTP.isEvent({ headers: r.headers, body: r.body })).toBe(true);
  const event = HTTP.toEvent({ headers: r.headers, body: r.body });
  if (Array.isArray(event)) throw new Error('a batch');
  expect(r.headers['content-type']).toBe('application/json');
  return event;
}

/** The summary the README promises, from the run as stored. */
function summary(run: CascadeRun) {
  const s = run.status!;
  return {
    runname: run.metadata.name,
    iuid: run.spec.pid,
    oname: 'org',
    sname: 'src',
    phase: s.phase,
    info: s.info,
    result: s.result,
    reason: s.conditions?.find((c) => c.type === 'Succeeded')?.reason,
    startTime: s.startTime,
    completionTime: s.completionTime,
    modules: s.modules?.map(
      (m) =>
        JSON.parse(
          JSON.stringify({
            name: m.name,
            phase: m.phase,
            result: m.result,
            startTime: m.startTime,
            completionTime: m.completionTime,
          }),
        ) as unknown,
    ),
  };
}

const owed = async (h: Harness, name: string) => {
  const s = (await h.getRun(name)).status;
  return [s?.slotReleased, s?.notified];
};

async function janitorSweep(h: Harness, env: Record<string, string>) {
  return runJanitorProcess(await janitorEnv(h.ns, { LOG_LEVEL: 'info', ...env }));
}

describe('the run-end CloudEvent', () => {
  it("a run that succeeds: the SDK's binary event with K_CE_OVERRIDES, retried after the sink failed, one id per run and outcome, sent again while owed", async () => {
    const { h, sink } = await setUp();
    const iuid = 'e0e01-event-a';
    const name = await startRun(h, iuid);
    sink.failNext(2);
    await resultsUpTo(h, name, MODULES);
    const run = await h.waitEnded(name);
    expect(run.status).toMatchObject({
      phase: 'Succeeded',
      slotReleased: true,
      notified: true,
      info: `${OUT}${SCENARIO}/${iuid}/${iuid}-final.zip`,
    });

    const id = `${run.metadata.uid}-succeeded`;
    expect(sink.received.map((r) => r.status)).toEqual([500, 500, 200]);
    for (const r of sink.received) {
      expect(asEvent(r)).toEqual({
        specversion: '1.0',
        id,
        type: 'net.cascade.run.succeeded.v1',
        source: `/cascade/${h.ns}/${SCENARIO}`,
        subject: name,
        time: run.status?.completionTime,
        datacontenttype: 'application/json',
        cluster: 'test',
        team: 'cascade',
        data: summary(run),
      });
    }
    expect(sink.received[0]!.data).toMatchObject({
      phase: 'Succeeded',
      reason: 'Succeeded',
      result: MODULES.map((m) => `${m}: success\n`),
    });

    // As if the process died after sending the event and before recording it:
    // the event is owed again; the module result delivered again sends it,
    // the same event, and the end's slot is not released twice.
    await h.custom.replaceNamespacedCustomObjectStatus({
      ...G,
      namespace: h.ns,
      plural: 'cascaderuns',
      name,
      body: { ...run, status: { ...run.status, notified: false } },
    });
    expect((await result(h, name, 'diff', 'success')).status).toBe(200);
    await h.waitEnded(name);
    expect(sink.received.slice(3).map((r) => [r.status, r.body])).toEqual([[200, sink.received[2]!.body]]);
    expect(asEvent(sink.received[3]!)).toEqual(asEvent(sink.received[2]!));
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });
  });

  it('a run that fails: net.cascade.run.failed.v1; a sink that refuses it fails nothing, the event stays owed and the janitor sends it', async () => {
    const { h, sink } = await setUp();
    const name = await startRun(h, 'e0e02-event-b');
    sink.failNext(1000);
    expect(await result(h, name, 'grayscale', 'failed')).toMatchObject({ status: 200, body: { verdict: 'applied' } });
    await waitFor(() => h.fns[0]!.output().includes('run-end event not delivered to K_SINK'), {
      message: 'the failed delivery logged',
    });
    const run = await h.getRun(name);
    expect(run.status).toMatchObject({ phase: 'Failed', info: 'Failed', slotReleased: true, notified: false });
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1 });
    expect(h.fns[0]!.errorLines(), 'a sink that refuses is a warning, not an error').toEqual([]);

    const id = `${run.metadata.uid}-failed`;
    expect(
      sink.received.map((r) => r.status),
      'every attempt of the policy',
    ).toEqual(Array<number>(FUNCTION_SINK_POLICY.retries + 1).fill(500));
    expect(new Set(sink.received.map((r) => asEvent(r).id))).toEqual(new Set([id]));
    expect(asEvent(sink.received[0]!)).toMatchObject({
      type: 'net.cascade.run.failed.v1',
      subject: name,
      data: summary(run),
    });
    expect(sink.received[0]!.data).toMatchObject({
      phase: 'Failed',
      reason: 'ModuleResultFailed',
      result: ['grayscale: failed\n'],
    });

    // A janitor with a hand-set K_CE_OVERRIDES that is not JSON does not start, and says why.
    const bad = await janitorSweep(h, { K_SINK: sink.url, K_CE_OVERRIDES: '{"extensions":{ID:"x"}}' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('configuration: K_CE_OVERRIDES is not JSON');

    // The sink recovers: the next sweep sends the owed event, the same one, and records it.
    sink.failNext(0);
    const sent = sink.received.length;
    const swept = await janitorSweep(h, { K_SINK: sink.url, K_CE_OVERRIDES: OVERRIDES });
    expect(swept.code, swept.stderr).toBe(0);
    expect(JSON.parse(swept.stdout)).toMatchObject({ runsHandled: 1, finished: 0, eventsOwed: 1, errors: 0 });
    expect(await owed(h, name)).toEqual([true, true]);
    expect(sink.received.slice(sent).map((r) => r.status)).toEqual([200]);
    expect(asEvent(sink.received[sent]!)).toEqual(asEvent(sink.received[0]!));
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1 });
  });

  it('a sink that never answers holds no reply: the result that ends the run is answered while the sink holds its event, which is delivered once the sink recovers', async () => {
    const { h, sink } = await setUp();
    const name = await startRun(h, 'e0e03-event-c');
    await resultsUpTo(h, name, MODULES.slice(0, 2));
    sink.hold();
    const reply = await result(h, name, 'diff', 'success');
    expect(reply).toMatchObject({ status: 200, body: { verdict: 'applied', phase: 'Succeeded' } });
    expect(
      sink.received.filter((r) => r.status !== 0),
      'the sink answered nothing before the reply',
    ).toEqual([]);
    // The event is on its way, held by the sink: the reply did not wait for it.
    await waitFor(() => sink.holding() > 0, { message: 'the sink holds the run-end event' });
    expect(await owed(h, name)).toEqual([true, false]);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });

    sink.release();
    const run = await h.waitEnded(name);
    const answered = sink.received.filter((r) => r.status === 200);
    expect(answered.length, 'delivered').toBeGreaterThan(0);
    expect(new Set(sink.received.map((r) => asEvent(r).id))).toEqual(new Set([`${run.metadata.uid}-succeeded`]));
    expect(asEvent(answered[0]!).data).toEqual(summary(run));
  });

  it('a function killed after the run ended and before the sink took the event: the janitor sends it', async () => {
    const { h, sink } = await setUp();
    const name = await startRun(h, 'e0e04-event-d');
    await resultsUpTo(h, name, MODULES.slice(0, 2));
    sink.hold();
    expect((await result(h, name, 'diff', 'success')).status).toBe(200);
    await waitFor(() => sink.holding() > 0, { message: 'the sink holds the run-end event' });

    const fn = h.fns[0]!;
    const exited = new Promise((resolve) => fn.child.once('exit', resolve));
    fn.child.kill('SIGKILL');
    await exited;
    await waitFor(() => sink.holding() === 0, { message: 'the held request went with the process' });
    expect(sink.received.map((r) => r.status)).toEqual(sink.received.map(() => -1));
    expect(await owed(h, name)).toEqual([true, false]);

    sink.release();
    const swept = await janitorSweep(h, { K_SINK: sink.url, K_CE_OVERRIDES: OVERRIDES });
    expect(swept.code, swept.stderr).toBe(0);
    const run = await h.waitEnded(name);
    const delivered = sink.received.filter((r) => r.status === 200);
    expect(delivered).toHaveLength(1);
    expect(asEvent(delivered[0]!)).toMatchObject({
      id: `${run.metadata.uid}-succeeded`,
      type: 'net.cascade.run.succeeded.v1',
      cluster: 'test',
      data: summary(run),
    });
    expect(asEvent(delivered[0]!)).toEqual(asEvent(sink.received[0]!));
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });
  });
});
