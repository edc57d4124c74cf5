// Issue 4, observability of the function as a real process: Cascade's metrics
// port after one run succeeded and one failed (the Go controller's names,
// labels and buckets, Cascade's own counters, scenario_current_runs from the
// API server), the whole text through `promtool check metrics`, and
// faas-js-runtime's own /metrics still answering on the function port.
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { failSecondScenario, successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, SCENARIO, type Harness, QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import { metricTypes, parseMetrics, promtoolCheck, samples, scrape, value, type Sample } from './support/ops.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const BUCKETS = ['1', '5', '20', '60', '100', '180', '+Inf'];
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const seconds = (run: CascadeRun) =>
  (Date.parse(run.status!.completionTime!) - Date.parse(run.status!.startTime!)) / 1000;

/** A histogram series: le values, cumulative counts consistent with its sum and count. */
function histogram(all: Sample[], name: string, labels: Record<string, string>) {
  const buckets = samples(all, `${name}_bucket`, labels);
  const count = value(all, `${name}_count`, labels);
  const sum = value(all, `${name}_sum`, labels);
  expect(buckets.map((b) => b.labels.le)).toEqual(BUCKETS);
  for (const b of buckets)
    expect(b.value, `${name} le=${b.labels.le}`).toBe(b.labels.le === '+Inf' || Number(b.labels.le) >= sum ? count : 0);
  return { count, sum };
}

async function switchScenario(h: Harness, modules: ReturnType<typeof failSecondScenario>): Promise<void> {
  const op = await h.operator();
  const body: CascadeAutoOperator = {
    ...op,
    spec: { ...op.spec, scenarioconfig: { ...op.spec.scenarioconfig, cascademodules: modules } },
  };
  await h.custom.replaceNamespacedCustomObject({
    ...G,
    namespace: h.ns,
    plural: 'cascadeautooperators',
    name: SCENARIO,
    body,
  });
}

/** A CascadeRun this process never heard of: scenario_current_runs comes from the API server. */
async function foreignActiveRun(h: Harness): Promise<void> {
  await h.custom.createNamespacedCustomObject({
    ...G,
    namespace: h.ns,
    plural: 'cascaderuns',
    body: {
      apiVersion: 'cascade.cascade.net/v1alpha1',
      kind: 'CascadeRun',
      metadata: { name: 'foreign-run' },
      spec: {
        ob: 'other-org',
        src: 'elsewhere',
        pid: 'foreign-iuid',
        scenarioname: SCENARIO,
        modules: ['grayscale'],
        turlinfo: 's3://x',
        cascademodules: successScenario(0).slice(0, 1),
      },
    },
  });
}

describe('metrics', QUEUE_PROXY_TEST, () => {
  it('after a run succeeded and a run failed: Go controller and Cascade metrics with exact values, promtool-valid', async () => {
    h = await cascadeHarness({ modules: successScenario(300), queueProxy: {} });
    const a = await post(h.url(), { turlinfo: 's3://in/a.tgz', iuid: 'ops-metrics-a', oname: 'org', sname: 'src-a' });
    expect(a.status).toBe(200);
    const runA = await h.waitEnded(String(a.body.run));
    expect(runA.status?.phase).toBe('Succeeded');

    await switchScenario(h, failSecondScenario(300));
    const b = await post(h.url(), { turlinfo: 's3://in/b.tgz', iuid: 'ops-metrics-b', oname: 'org', sname: 'src-b' });
    expect(b.status).toBe(200);
    const runB = await h.waitEnded(String(b.body.run));
    expect(runB.status?.phase).toBe('Failed');
    await foreignActiveRun(h);

    // scenario_current_runs is read from the API server at most every 5 s.
    const labelsOf = (o: string, s: string) => ({ scenarioName: SCENARIO, OName: o, SName: s });
    let text = '';
    await expect
      .poll(
        async () => {
          text = await scrape(h!.fns[0]!.metricsUrl);
          return samples(parseMetrics(text), 'scenario_current_runs').map((s) => ({
            labels: s.labels,
            value: s.value,
          }));
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual([{ labels: labelsOf('other-org', 'elsewhere'), value: 1 }]);
    const all = parseMetrics(text);
    const A = labelsOf('org', 'src-a');
    const B = labelsOf('org', 'src-b');

    expect(metricTypes(text)).toMatchObject({
      success_scenario_total: 'counter',
      failed_scenario_total: 'counter',
      scenario_current_runs: 'gauge',
      scenarion_execution_time_seconds: 'histogram',
      job_execution_time_seconds: 'histogram',
      http_requests_total: 'counter',
      response_status: 'counter',
      http_response_time_seconds: 'histogram',
      cascade_transitions_total: 'counter',
      cascade_api_retries_total: 'counter',
      cascade_status_conflicts_total: 'counter',
      cascade_rate_limited_total: 'counter',
      cascade_ignored_jobs_total: 'counter',
      cascade_job_confirmations_total: 'counter',
      cascade_counters_writer: 'gauge',
      cascade_sync_passes_total: 'counter',
      cascade_sync_moves_total: 'counter',
    });
    // Every Job the runs' events showed was the one Cascade created for its step.
    expect(
      samples(all, 'cascade_ignored_jobs_total')
        .map((s) => [s.labels['reason'], s.value])
        .sort(),
    ).toEqual([
      ['other-uid', 0],
      ['unconfirmed', 0],
      ['unknown-name', 0],
    ]);
    expect(samples(all, 'success_scenario_total').map((s) => [s.labels, s.value])).toEqual([[A, 1]]);
    expect(samples(all, 'failed_scenario_total').map((s) => [s.labels, s.value])).toEqual([[B, 1]]);

    const scenarioA = histogram(all, 'scenarion_execution_time_seconds', A);
    const scenarioB = histogram(all, 'scenarion_execution_time_seconds', B);
    expect([scenarioA.count, scenarioB.count]).toEqual([1, 1]);
    expect(Math.abs(scenarioA.sum - seconds(runA))).toBeLessThanOrEqual(1.5);
    expect(Math.abs(scenarioB.sum - seconds(runB))).toBeLessThanOrEqual(1.5);

    const jobs = samples(all, 'job_execution_time_seconds_count').map(
      (s) => `${s.labels.SName} ${s.labels.moduleName} ${s.labels.status} ${s.value}`,
    );
    expect(jobs.sort()).toEqual([
      'src-a binarization succeeded 1',
      'src-a diff succeeded 1',
      'src-a grayscale succeeded 1',
      'src-b fail failed 1',
      'src-b grayscale succeeded 1',
    ]);
    for (const [module, s, status] of [
      ['grayscale', 'src-a', 'succeeded'],
      ['fail', 'src-b', 'failed'],
    ] as const) {
      expect(
        histogram(all, 'job_execution_time_seconds', { ...labelsOf('org', s), moduleName: module, status }).count,
      ).toBe(1);
    }

    expect(value(all, 'http_requests_total', { path: '/run' })).toBe(2);
    expect(samples(all, 'response_status', { path: '/run' }).map((s) => [s.labels.status, s.value])).toEqual([
      ['200', 2],
    ]);
    const events = value(all, 'http_requests_total', { path: '/' });
    expect(events).toBeGreaterThan(0); // Job events from the ApiServerSource
    expect(samples(all, 'response_status', { path: '/' }).reduce((n, s) => n + s.value, 0)).toBe(events);
    expect(value(all, 'http_response_time_seconds_count', { path: '/run' })).toBe(2);

    expect(Object.fromEntries(samples(all, 'cascade_transitions_total').map((s) => [s.labels.kind, s.value]))).toEqual({
      ModuleStarted: 5,
      ModuleSucceeded: 4,
      ModuleFailed: 1,
      RunSucceeded: 1,
      RunFailed: 1,
      ModuleRetrying: 0,
      RunResumed: 0,
      ModuleCancelled: 0,
      RunCancelled: 0,
    });
    // One process, one run at a time, a healthy API server: nothing to retry,
    // no race lost (test/engine-api-unavailable.test.ts and
    // test/engine-status-conflict.test.ts make these counters move).
    expect(value(all, 'cascade_api_retries_total')).toBe(0);
    expect(value(all, 'cascade_status_conflicts_total')).toBe(0);
    expect(value(all, 'cascade_rate_limited_total')).toBe(0);

    // The whole text parses (code 1 would be a parse error). promtool's lint
    // findings are exactly the Go controller's own names, kept so that its
    // dashboards and alerts keep working: camelCase labels (scenarioName,
    // OName, SName, moduleName) and response_status without _total. Cascade's
    // own metrics are clean.
    const check = await promtoolCheck(text);
    const camel = (m: string) => `${m} label names should be written in 'snake_case' not 'camelCase'`;
    expect(
      { code: check.code, problems: [...new Set(check.problems)].sort() },
      `promtool check metrics:\n${check.problems.join('\n')}`,
    ).toEqual({
      code: 3,
      problems: [
        camel('failed_scenario_total'),
        camel('job_execution_time_seconds'),
        'response_status counter metrics should have "_total" suffix',
        camel('scenario_current_runs'),
        camel('scenarion_execution_time_seconds'),
        camel('success_scenario_total'),
      ],
    });
  });

  it("faas-js-runtime's own /metrics still answers on the function port", async () => {
    h = await cascadeHarness({ modules: successScenario(0), source: false });
    expect(await post(h.url(), { runname: 'nothing', modulename: 'x', moduleresult: 'info' })).toMatchObject({
      status: 400,
      body: { error: 'unknown run "nothing"' },
    });
    const text = await scrape(`${h.url()}/metrics`);
    expect(value(parseMetrics(text), 'faas_invocations')).toBeGreaterThanOrEqual(1);
    expect(metricTypes(text)).not.toHaveProperty('cascade_transitions_total');
    expect((await promtoolCheck(text)).code, "the runtime's text parses").not.toBe(1);
  });
});

describe('health', () => {
  it("/healthz is the Go controller's JSON with the build from BUILD_*; /ready is 200 when ready", async () => {
    const build = { BUILD_TAG: 'v1.2.3', BUILD_HASH: '0123abcd', BUILD_DATE: '2025-06-01T12:00:00Z' };
    h = await cascadeHarness({ modules: successScenario(0), source: false, env: build });
    const healthz = await fetch(`${h.url()}/healthz`);
    expect(healthz.status).toBe(200);
    expect(healthz.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await healthz.json()).toEqual({
      app_name: 'cascadescenariocontroller-auto',
      status: 'OK',
      tag: 'v1.2.3',
      hash: '0123abcd',
      date: '2025-06-01T12:00:00Z',
    });
    const ready = await fetch(`${h.url()}/ready`);
    expect([ready.status, await ready.text()]).toEqual([200, 'OK']);
  });
});
