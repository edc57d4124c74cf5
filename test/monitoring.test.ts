// Issue 9, monitoring that works: a real Prometheus (the pinned build of
// local/prometheus/) scrapes the function and the queue-proxy in front of it
// every second, and every query of
// knative/monitoring/grafana-dashboard.json, read from the JSON with its
// variables filled in as Grafana does, returns what a known set of runs
// implies. Expected values never come from Prometheus: they are the runs'
// known counts, and PromQL's definitions applied to counter deltas read
// straight off the function's /metrics. The PodMonitor's own tests are in
// podmonitor.test.ts.
//
// Why the window is what it is: rate() extrapolates to the edges of its
// window, and a series that appears inside the window lost its first
// increment (Prometheus cannot know it was 0 before). So a baseline round of
// runs creates every series first; the window then runs from a scrape taken
// once the baseline settled to a scrape taken once the measured runs settled,
// and the query is evaluated at that last scrape: no extrapolation is left
// but 1 ms, and rate × window is the exact delta.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import {
  ensureKubeStateMetrics,
  startKubeStateMetrics,
  type RunningKubeStateMetrics,
} from '../local/kube-state-metrics/kube-state-metrics.ts';
import { ensurePrometheus } from '../local/prometheus/binaries.ts';
import { startPrometheus, type RunningPrometheus } from '../local/prometheus/server.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { failSecondScenario, successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, SCENARIO, type Harness, QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import {
  deltas,
  fillVariables,
  labelValuesQuery,
  panelQueries,
  quantileBy,
  resultBy,
  sumBy,
  variableQuery,
  type PanelQuery,
} from './support/dashboard.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';
import { parseMetrics, samples, scrape, type Sample } from './support/ops.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const FUNCTION_METRICS = /^(http_|response_status|success_scenario|failed_scenario|scenarion_|job_execution)/;

// The pinned prometheus and kube-state-metrics, built on a first run.
const binaries = { prometheus: '', kubeStateMetrics: '' };
beforeAll(async () => {
  [binaries.prometheus, binaries.kubeStateMetrics] = await Promise.all([ensurePrometheus(), ensureKubeStateMetrics()]);
});
let h: Harness | undefined;
let idle: FunctionProcess | undefined;
let prom: RunningPrometheus | undefined;
let ksm: RunningKubeStateMetrics | undefined;
afterEach(async () => {
  await prom?.stop();
  await ksm?.stop();
  ksm = undefined;
  await idle?.stop();
  await h?.stop();
  [h, idle, prom] = [undefined, undefined, undefined];
});

async function switchScenario(h: Harness, modules: ReturnType<typeof failSecondScenario>): Promise<void> {
  const op: CascadeAutoOperator = await h.operator();
  const body = { ...op, spec: { ...op.spec, scenarioconfig: { ...op.spec.scenarioconfig, cascademodules: modules } } };
  await h.custom.replaceNamespacedCustomObject({
    ...G,
    namespace: h.ns,
    plural: 'cascadeautooperators',
    name: SCENARIO,
    body,
  });
}

let runs = 0;
async function run(h: Harness, sname: string, phase: 'Succeeded' | 'Failed'): Promise<void> {
  const reply = await post(h.url(), {
    turlinfo: `s3://in/${sname}.tgz`,
    iuid: `monitoring-${++runs}`,
    oname: 'org',
    sname,
  });
  expect(reply.status).toBe(200);
  expect((await h.waitEnded(String(reply.body.run))).status?.phase).toBe(phase);
}

/** A CascadeRun no process started: scenario_current_runs counts it from the API server. */
async function foreignRun(h: Harness, name: string, src: string): Promise<void> {
  await h.custom.createNamespacedCustomObject({
    ...G,
    namespace: h.ns,
    plural: 'cascaderuns',
    body: {
      apiVersion: 'cascade.cascade.net/v1alpha1',
      kind: 'CascadeRun',
      metadata: { name },
      spec: {
        ob: 'other-org',
        src,
        pid: name,
        scenarioname: SCENARIO,
        modules: ['grayscale'],
        turlinfo: 's3://x',
        cascademodules: successScenario(0).slice(0, 1),
      },
    },
  });
}

/** Unix ms of the last scrape of the function on `pod`. */
async function lastScrape(p: RunningPrometheus, pod: string): Promise<number> {
  const [up] = await p.query(`timestamp(up{job="cascade", pod="${pod}"})`);
  return up ? Math.round(up.value * 1000) : 0;
}

/**
 * Waits until the function's counters stand still across a scrape of
 * Prometheus: read them, wait for a scrape that began after, read them again;
 * the same twice means that scrape holds exactly these values. Returns its
 * time and the values.
 */
function settle(p: RunningPrometheus, fn: FunctionProcess, pod: string): Promise<{ t: number; samples: Sample[] }> {
  const counters = async () => parseMetrics(await scrape(fn.metricsUrl)).filter((s) => FUNCTION_METRICS.test(s.name));
  return waitFor(
    async () => {
      const a = await counters();
      const read = Date.now();
      const t = await waitFor(
        async () => {
          const last = await lastScrape(p, pod);
          return last > read && last;
        },
        { message: `a scrape of ${pod}` },
      );
      const b = await counters();
      return JSON.stringify(a) === JSON.stringify(b) && { t, samples: b };
    },
    { timeoutMs: 60_000, message: "the function's counters settled and scraped" },
  );
}

const near = (actual: number | undefined, expected: number) =>
  actual !== undefined &&
  (Number.isNaN(expected) ? Number.isNaN(actual) : Math.abs(actual - expected) <= 1e-3 * Math.abs(expected) + 1e-9);

function expectNear(q: PanelQuery, actual: Map<string, number>, expected: Map<string, number>): void {
  const where = `${q.panel} ${q.refId}: ${q.expr}`;
  expect([...actual.keys()].sort(), where).toEqual([...expected.keys()].sort());
  for (const [k, e] of expected) expect(near(actual.get(k), e), `${where} ${k}: ${actual.get(k)} != ${e}`).toBe(true);
}

/** What each function panel's query must return, from the counter deltas of the window (seconds). */
function expectations(d: (name: string) => Sample[], seconds: number) {
  const perSecond = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / seconds]));
  const mean = (by: string[]) => {
    const sums = sumBy(d('scenarion_execution_time_seconds_sum'), by);
    const counts = sumBy(d('scenarion_execution_time_seconds_count'), by);
    return new Map([...sums].map(([k, v]) => [k, v / counts.get(k)!]));
  };
  const e: Record<string, { by: string[]; values: Map<string, number> }> = {
    'Request rate by path A': { by: ['path'], values: perSecond(sumBy(d('http_requests_total'), ['path'])) },
    'Response status codes A': {
      by: ['status', 'path'],
      values: perSecond(sumBy(d('response_status'), ['status', 'path'])),
    },
    'Success vs failed scenarios A': {
      by: ['scenarioName'],
      values: sumBy(d('success_scenario_total'), ['scenarioName']),
    },
    'Success vs failed scenarios B': {
      by: ['scenarioName'],
      values: sumBy(d('failed_scenario_total'), ['scenarioName']),
    },
    'Scenario execution time C': { by: ['scenarioName'], values: mean(['scenarioName']) },
  };
  for (const [refId, q] of [
    ['A', 0.5],
    ['B', 0.95],
    ['C', 0.99],
  ] as const) {
    e[`HTTP latency percentiles ${refId}`] = {
      by: ['path'],
      values: quantileBy(q, d('http_response_time_seconds_bucket'), ['path']),
    };
  }
  for (const [refId, q] of [
    ['A', 0.5],
    ['B', 0.95],
  ] as const) {
    e[`Scenario execution time ${refId}`] = {
      by: ['scenarioName'],
      values: quantileBy(q, d('scenarion_execution_time_seconds_bucket'), ['scenarioName']),
    };
  }
  e['Per-job execution time by module A'] = {
    by: ['moduleName', 'status'],
    values: quantileBy(0.95, d('job_execution_time_seconds_bucket'), ['moduleName', 'status']),
  };
  return e;
}

describe('the Grafana dashboard against a real Prometheus', QUEUE_PROXY_TEST, () => {
  it("after a known set of runs, every query of the function's panels returns what the runs imply", async () => {
    // Replica 0 behind Knative's queue-proxy, as in a pod: every request reaches it through queue-proxy.
    h = await cascadeHarness({ modules: successScenario(300), queueProxy: {} });
    // A second replica that serves nothing: it still reports scenario_current_runs for the namespace.
    idle = await startFunction(h.env);
    const labels = (pod: string) => ({ namespace: h!.ns, pod });
    prom = await startPrometheus(binaries.prometheus, [
      { job: 'cascade', url: h.fns[0]!.metricsUrl, labels: labels('cascade-0') },
      { job: 'cascade', url: idle.metricsUrl, labels: labels('cascade-1') },
      { job: 'queue-proxy', url: h.queueProxy!.metricsUrl, labels: labels('cascade-0') },
    ]);

    // One failed run and two that succeeded.
    const measured = async () => {
      await switchScenario(h!, failSecondScenario(300));
      await run(h!, 'src-b', 'Failed');
      await switchScenario(h!, successScenario(300));
      await run(h!, 'src-a', 'Succeeded');
      await run(h!, 'src-a', 'Succeeded');
    };
    // The baseline, the same runs: every series the measured runs touch exists
    // before the window. Should one still be born inside it (a status code
    // only a race gives), the round is done again, the window moved on.
    await measured();
    let before = await settle(prom, h.fns[0]!, 'cascade-0');
    let after = before;
    for (let round = 1; ; round++) {
      await measured();
      after = await settle(prom, h.fns[0]!, 'cascade-0');
      const known = new Set(before.samples.map((x) => JSON.stringify([x.name, x.labels])));
      const born = after.samples.filter((x) => !known.has(JSON.stringify([x.name, x.labels])));
      if (born.length === 0) break;
      if (round === 3) throw new Error(`series still born in round ${round}: ${JSON.stringify(born.slice(0, 5))}`);
      before = after;
    }

    const d = (name: string) => deltas(before.samples, after.samples, name);
    const byLabels = (name: string, by: string[]) => Object.fromEntries(sumBy(d(name), by));
    // What the runs imply, read off the function directly.
    expect(byLabels('success_scenario_total', ['scenarioName', 'SName'])).toEqual({
      [JSON.stringify([SCENARIO, 'src-a'])]: 2,
    });
    expect(byLabels('failed_scenario_total', ['scenarioName', 'SName'])).toEqual({
      [JSON.stringify([SCENARIO, 'src-b'])]: 1,
    });
    expect(byLabels('scenarion_execution_time_seconds_count', ['scenarioName'])).toEqual({
      [JSON.stringify([SCENARIO])]: 3,
    });
    expect(byLabels('http_requests_total', ['path'])[JSON.stringify(['/run'])]).toBe(3);
    expect(byLabels('response_status', ['status', 'path'])[JSON.stringify(['200', '/run'])]).toBe(3);
    expect(byLabels('job_execution_time_seconds_count', ['moduleName', 'status'])).toEqual({
      [JSON.stringify(['grayscale', 'succeeded'])]: 3,
      [JSON.stringify(['binarization', 'succeeded'])]: 2,
      [JSON.stringify(['diff', 'succeeded'])]: 2,
      [JSON.stringify(['fail', 'failed'])]: 1,
    });

    const windowMs = after.t - before.t + 1;
    const vars = { namespace: h.ns, scenario: '.*', __rate_interval: `${windowMs}ms` };
    const expected = expectations(d, windowMs / 1000);
    const checked: string[] = [];
    for (const q of panelQueries().filter((x) => `${x.panel} ${x.refId}` in expected)) {
      const e = expected[`${q.panel} ${q.refId}`]!;
      const result = await prom.query(fillVariables(q.expr, vars), after.t / 1000);
      expectNear(q, resultBy(result, e.by), e.values);
      checked.push(`${q.panel} ${q.refId}`);
    }
    expect(checked.sort()).toEqual(Object.keys(expected).sort());

    // The variables: label_values() as Grafana asks it.
    const ns = labelValuesQuery(variableQuery('namespace'));
    expect(await prom.labelValues(ns.label, ns.match)).toEqual([h.ns]);
    const scenario = labelValuesQuery(fillVariables(variableQuery('scenario'), { namespace: h.ns }));
    expect(await prom.labelValues(scenario.label, scenario.match)).toEqual([SCENARIO]);

    // queue-proxy, scraped too: it proxied every request the function counted (probes are neither's).
    const invocations = `sum(kn_serving_invocation_duration_seconds_count{job="queue-proxy", namespace="${h.ns}"})`;
    const handled = `sum(http_requests_total{job="cascade", pod="cascade-0"})`;
    const proxied = await waitFor(
      async () => {
        const [[qp], [fn]] = await Promise.all([prom!.query(invocations), prom!.query(handled)]);
        return qp && fn && qp.value === fn.value && qp.value;
      },
      { message: "queue-proxy's invocations and the function's requests agree in Prometheus" },
    );
    expect(proxied).toBe(samples(after.samples, 'http_requests_total').reduce((n, x) => n + x.value, 0));

    // Current runs: each replica reports the namespace's runs, the panel counts them once.
    // The sources stop first: no add event reaches the function, so it starts none of these runs.
    for (const source of h.sources) source.stop();
    await foreignRun(h, 'foreign-1', 'elsewhere');
    await foreignRun(h, 'foreign-2', 'elsewhere');
    await foreignRun(h, 'foreign-3', 'there');
    const current = panelQueries().find((x) => x.panel === 'Current runs')!;
    const runsOf = (src: string) => JSON.stringify([SCENARIO, 'other-org', src]);
    const t = await waitFor(
      async () => {
        const raw = await prom!.query(`scenario_current_runs{namespace="${h!.ns}"}`);
        const both = raw.map((r) => `${r.metric.pod} ${r.metric.SName} ${r.value}`).sort();
        const now = Date.now() / 1000;
        return (
          JSON.stringify(both) ===
            JSON.stringify([
              'cascade-0 elsewhere 2',
              'cascade-0 there 1',
              'cascade-1 elsewhere 2',
              'cascade-1 there 1',
            ]) && now
        );
      },
      { timeoutMs: 30_000, message: 'both replicas report the foreign runs' },
    );
    const result = await prom.query(fillVariables(current.expr, vars), t);
    expect(Object.fromEntries(resultBy(result, ['scenarioName', 'OName', 'SName']))).toEqual({
      [runsOf('elsewhere')]: 2,
      [runsOf('there')]: 1,
    });
    expect(samples(parseMetrics(await scrape(idle.metricsUrl)), 'http_requests_total')).toEqual([]);
  });
});

/** Gives a run a status by hand (a foreign run: no event about it reaches a process). */
async function setStatus(h: Harness, name: string, status: CascadeRun['status']): Promise<void> {
  const run = await h.getRun(name);
  await h.custom.replaceNamespacedCustomObjectStatus({
    ...G,
    namespace: h.ns,
    plural: 'cascaderuns',
    name,
    body: { ...run, status },
  });
}

/** An RFC 3339 time as kube-state-metrics exports it: whole unix seconds (Go's Time.Unix()). */
const seconds = (time: string | undefined) => Math.floor(Date.parse(time!) / 1000);

/** What each kube-state-metrics panel's query must return at time t (unix s), from the objects themselves. */
function ksmExpectations(ns: string, runs: CascadeRun[], op: CascadeAutoOperator, t: number) {
  const one = (...labels: string[]) => JSON.stringify(labels);
  const phase = (p: string) => runs.filter((r) => r.status?.phase === p);
  const ended = runs.filter((r) => r.status?.completionTime && r.status.startTime);
  const byNs = (list: CascadeRun[], value: (r: CascadeRun) => number) =>
    new Map(list.map((r) => [one(ns, r.metadata!.name!), value(r)]));
  const created = new Map<string, number>();
  for (const r of runs)
    created.set(
      one(r.spec.scenarioname, r.spec.ob ?? ''),
      (created.get(one(r.spec.scenarioname, r.spec.ob ?? '')) ?? 0) + 1,
    );
  const counter = (k: 'active' | 'succeeded' | 'failed' | 'cancelled') =>
    new Map([[one(ns, op.metadata!.name!), op.status?.[k] ?? 0]]);
  const e: Record<string, { by: string[]; values: Map<string, number> }> = {
    'CascadeRuns by phase A': {
      by: ['phase'],
      values: new Map(
        ['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'].map((p) => [one(p), phase(p).length]),
      ),
    },
    'Run duration (from the CascadeRuns) A': {
      by: ['namespace', 'cascaderun'],
      values: byNs(ended, (r) => seconds(r.status!.completionTime) - seconds(r.status!.startTime)),
    },
    'Age of running runs A': {
      by: ['namespace', 'cascaderun'],
      values: byNs(phase('Running'), (r) => t - seconds(r.status!.startTime)),
    },
    'Current step of running runs A': {
      by: ['namespace', 'cascaderun'],
      values: byNs(phase('Running'), (r) => r.status!.currentStep ?? 0),
    },
    'CascadeAutoOperator counters A': { by: ['namespace', 'cascadeautooperator'], values: counter('active') },
    'CascadeAutoOperator counters B': { by: ['namespace', 'cascadeautooperator'], values: counter('succeeded') },
    'CascadeAutoOperator counters C': { by: ['namespace', 'cascadeautooperator'], values: counter('failed') },
    'CascadeAutoOperator counters D': { by: ['namespace', 'cascadeautooperator'], values: counter('cancelled') },
    'Runs created per hour A': { by: ['scenarioname', 'ob'], values: created },
  };
  return e;
}

describe('the kube-state-metrics panels against a real Prometheus and kube-state-metrics', () => {
  it('after a known set of runs, every query of those panels returns what the CascadeRuns say', async () => {
    h = await cascadeHarness({ modules: successScenario(0) });
    ksm = await startKubeStateMetrics(binaries.kubeStateMetrics, adminKubeconfigPath());
    // honor_labels, as docs/operations.md says: the runs' namespace, not kube-state-metrics' own.
    prom = await startPrometheus(binaries.prometheus, [
      { job: 'kube-state-metrics', url: ksm.metricsUrl, labels: { namespace: 'monitoring' }, honorLabels: true },
    ]);

    await run(h, 'src-a', 'Succeeded');
    await switchScenario(h, failSecondScenario(0));
    await run(h, 'src-b', 'Failed');
    // The sources stop first: no add event reaches the function, so it starts none of the runs below.
    for (const source of h.sources) source.stop();
    await foreignRun(h, 'foreign-running', 'elsewhere');
    await setStatus(h, 'foreign-running', {
      phase: 'Running',
      startTime: new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      currentStep: 1,
    });
    await foreignRun(h, 'foreign-pending', 'elsewhere');
    await setStatus(h, 'foreign-pending', { phase: 'Pending' });

    const runs = await h.listRuns();
    const op = await h.operator();
    expect(runs.map((r) => r.status?.phase).sort()).toEqual(['Failed', 'Pending', 'Running', 'Succeeded']);
    expect([op.status?.succeeded, op.status?.failed]).toEqual([1, 1]);
    const vars = { namespace: h.ns, scenario: '.*', __rate_interval: '1m' };
    const queries = panelQueries().filter((q) => `${q.panel} ${q.refId}` in ksmExpectations(h!.ns, runs, op, 0));
    expect(queries.length).toBe(9);
    // kube-state-metrics follows the objects through a watch, Prometheus scrapes it every second: poll until all agree.
    const mismatches = async () => {
      const t = Math.floor(Date.now() / 1000);
      const expected = ksmExpectations(h!.ns, runs, op, t);
      const wrong: string[] = [];
      for (const q of queries) {
        const e = expected[`${q.panel} ${q.refId}`]!;
        const actual = resultBy(await prom!.query(fillVariables(q.expr, vars), t), e.by);
        const same = actual.size === e.values.size && [...e.values].every(([k, v]) => near(actual.get(k), v));
        if (!same)
          wrong.push(`${q.panel} ${q.refId}: ${JSON.stringify([...actual])} != ${JSON.stringify([...e.values])}`);
      }
      return wrong;
    };
    let last: string[] = [];
    await waitFor(async () => (last = await mismatches()).length === 0, {
      timeoutMs: 30_000,
      message: 'the kube-state-metrics panels',
    }).catch(() => {});
    expect(last).toEqual([]);
    // nilIsZero: no run without a start or completion time made it log an error.
    expect(
      ksm
        .output()
        .split('\n')
        .filter((l) => /^E\d{4}/.test(l)),
    ).toEqual([]);
  });
});

describe('the two tests above', () => {
  it('prove every query of the dashboard', () => {
    const op = { metadata: { name: SCENARIO } } as CascadeAutoOperator;
    const proved = [
      ...Object.keys(expectations(() => [], 1)),
      'Current runs A',
      ...Object.keys(ksmExpectations('ns', [], op, 0)),
    ];
    expect(proved.sort()).toEqual(
      panelQueries()
        .map((q) => `${q.panel} ${q.refId}`)
        .sort(),
    );
  });
});
