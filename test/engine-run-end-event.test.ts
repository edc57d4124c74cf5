// The run-end CloudEvent to K_SINK (README: "its id is stable per run and
// outcome, delivery is retried and a failure is logged, never failing the
// run"), with the function as a real process and a sink that records every
// request and refuses as many as the test asks.
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { binaryEvent, cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { recordingSink, type SinkRequest } from './support/recording-sink.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const MODULES = ['grayscale', 'binarization', 'diff'];
let h: Harness | undefined;
let sink: Awaited<ReturnType<typeof recordingSink>> | undefined;
afterEach(async () => {
  await h?.stop();
  await sink?.close();
  h = undefined; sink = undefined;
});

async function setUp() {
  sink = await recordingSink();
  h = await cascadeHarness({ modules: successScenario(600_000), source: false, env: { K_SINK: sink.url } });
  return { h, sink };
}

async function startRun(h: Harness, iuid: string): Promise<string> {
  const reply = await post(h.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid, oname: 'org', sname: 'src' });
  expect(reply.status).toBe(200);
  return String(reply.body.run);
}

async function result(h: Harness, run: string, module: string, moduleresult: string): Promise<void> {
  expect(await post(h.url(), { runname: run, modulename: module, moduleresult })).toMatchObject({ status: 200, body: { verdict: 'applied' } });
}

const ceHeaders = (r: SinkRequest) => ({
  specversion: r.headers['ce-specversion'], id: r.headers['ce-id'], type: r.headers['ce-type'],
  source: r.headers['ce-source'], subject: r.headers['ce-subject'], contentType: r.headers['content-type'],
});

/** The summary the README promises, from the run as stored. */
function summary(run: CascadeRun) {
  const s = run.status!;
  return {
    runname: run.metadata.name, iuid: run.spec.pid, oname: 'org', sname: 'src', phase: s.phase, info: s.info, result: s.result,
    reason: s.conditions?.find((c) => c.type === 'Succeeded')?.reason, startTime: s.startTime, completionTime: s.completionTime,
    modules: s.modules?.map((m) => JSON.parse(JSON.stringify({ name: m.name, phase: m.phase, result: m.result, startTime: m.startTime, completionTime: m.completionTime })) as unknown),
  };
}

describe('the run-end CloudEvent', () => {
  it('a run that succeeds: retried after the sink failed, one id per run and outcome, the run\'s summary as data', async () => {
    const { h, sink } = await setUp();
    const iuid = 'e0e01-event-a';
    const name = await startRun(h, iuid);
    sink.failNext(2);
    for (const module of MODULES) await result(h, name, module, 'success');
    const run = await h.getRun(name);
    expect(run.status).toMatchObject({ phase: 'Succeeded', notified: true, info: `${OUT}${SCENARIO}/${iuid}/${iuid}-final.zip` });

    const id = `${run.metadata.uid}-succeeded`;
    expect(sink.received.map((r) => r.status)).toEqual([500, 500, 200]);
    for (const r of sink.received) {
      expect(ceHeaders(r)).toEqual({
        specversion: '1.0', id, type: 'net.cascade.run.succeeded.v1', source: `/cascade/${h.ns}/${SCENARIO}`, subject: name, contentType: 'application/json',
      });
      expect(Date.parse(String(r.headers['ce-time']))).not.toBeNaN();
      expect(r.data).toEqual(summary(run));
    }
    expect(sink.received[0]!.data).toMatchObject({ phase: 'Succeeded', reason: 'Succeeded', result: MODULES.map((m) => `${m}: success\n`) });

    // As if the process died after sending the event and before recording it:
    // the next delivery ends the run again, with the same id, counted once.
    await h.custom.replaceNamespacedCustomObjectStatus({ ...G, namespace: h.ns, plural: 'cascaderuns', name, body: { ...run, status: { ...run.status, notified: false } } });
    const jobEvent = binaryEvent('dev.knative.apiserver.resource.delete', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: `${SCENARIO}-diff-e0e01`, labels: { [LABEL_RUN]: name } } });
    expect(await post(h.url(), jobEvent.body, jobEvent.headers)).toMatchObject({ status: 200, body: { verdict: 'observed', phase: 'Succeeded' } });
    expect(sink.received.slice(3).map((r) => [r.status, r.headers['ce-id'], r.headers['ce-type']])).toEqual([[200, id, 'net.cascade.run.succeeded.v1']]);
    expect((await h.getRun(name)).status?.notified).toBe(true);
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: 1, failed: 0 });
  });

  it('a run that fails: net.cascade.run.failed.v1; a sink that never takes it does not fail the run, the failure is logged', async () => {
    const { h, sink } = await setUp();
    const name = await startRun(h, 'e0e02-event-b');
    sink.failNext(1000);
    await result(h, name, 'grayscale', 'failed');
    const run = await h.getRun(name);
    expect(run.status).toMatchObject({ phase: 'Failed', notified: true, info: 'Failed' });

    const ids = new Set(sink.received.map((r) => r.headers['ce-id']));
    expect(sink.received.length, 'delivery retried').toBeGreaterThan(1);
    expect(sink.received.map((r) => r.status)).toEqual(sink.received.map(() => 500));
    expect([...ids]).toEqual([`${run.metadata.uid}-failed`]);
    expect(ceHeaders(sink.received[0]!)).toMatchObject({ type: 'net.cascade.run.failed.v1', subject: name });
    expect(sink.received[0]!.data).toEqual(summary(run));
    expect(sink.received[0]!.data).toMatchObject({ phase: 'Failed', reason: 'ModuleResultFailed', result: ['grayscale: failed\n'] });
    expect((await h.operator()).status).toMatchObject({ active: 0, succeeded: 0, failed: 1 });
    expect(h.fns[0]!.output()).toContain('run-end event not delivered to K_SINK');
  });
});
