// Several scenarios served by one function: a run request names its
// CascadeAutoOperator (`scenario`, plain body and CloudEvent data alike), or
// gets SCENARIO_NAME. Each scenario names its own runs, Jobs and archive
// paths, keeps its own counters and metrics; CASCADE_SCENARIOS, when set, is
// the list a request may name; an allowed scenario without an operator is a
// 500 like a missing scenario.
import type { V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import { RUN_REQUESTED } from '../shared/api/events.ts';
import { imageModule } from './fixtures/scenarios.ts';
import {
  cascadeHarness,
  COUNTERS_SETTLE,
  createOperator,
  type Harness,
  OUT,
  post,
  SCENARIO,
} from './support/cascade-harness.ts';
import { waitFor } from './support/kube.ts';
import { parseMetrics, samples, scrape } from './support/ops.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const OTHER = 'resizer';
const env = (job: V1Job | undefined, name: string) =>
  job?.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;

const operator = (harness: Harness, name: string) =>
  harness.custom.getNamespacedCustomObject({
    ...G,
    namespace: harness.ns,
    plural: 'cascadeautooperators',
    name,
  }) as Promise<CascadeAutoOperator>;

describe('several scenarios per deployment', () => {
  it(
    'one function serves two scenarios: names, archive paths, counters and metrics per scenario; CASCADE_SCENARIOS bounds what a request may name',
    { timeout: 300_000 },
    async () => {
      h = await cascadeHarness({
        modules: [imageModule('grayscale', {})],
        env: { CASCADE_SCENARIOS: `${OTHER},missing` },
      });
      await createOperator(h.custom, h.ns, OTHER, {
        scenarioconfig: { cascademodules: [imageModule('shrink', {}), imageModule('sharpen', {})] },
        maxConcurrentRuns: 1,
      });

      const plain = await post(h.url(), {
        turlinfo: 's3://in/a.tgz',
        iuid: 'abcdef-1',
        oname: 'org',
        sname: 'src',
        scenario: OTHER,
      });
      expect(plain).toMatchObject({
        status: 200,
        body: { run: `${OTHER}-abcde`, scenario: `CascadeAutoOperator/${OTHER}` },
      });
      expect(
        await h.deliver(RUN_REQUESTED, {
          turlinfo: 's3://in/b.tgz',
          iuid: 'bcdefa-2',
          oname: 'org',
          sname: 'src',
          scenario: OTHER,
        }),
      ).toBe(202);
      const byDefault = await post(h.url(), {
        turlinfo: 's3://in/c.tgz',
        iuid: 'cdefab-3',
        oname: 'org',
        sname: 'src',
      });
      expect(byDefault).toMatchObject({
        status: 200,
        body: { run: `${SCENARIO}-cdefa`, scenario: `CascadeAutoOperator/${SCENARIO}` },
      });

      const runs = [`${OTHER}-abcde`, `${OTHER}-bcdef`, `${SCENARIO}-cdefa`];
      for (const run of runs) expect((await h.waitEnded(run, 180_000)).status?.phase).toBe('Succeeded');
      const other = await h.getRun(`${OTHER}-abcde`);
      expect(other.spec).toMatchObject({ scenarioname: OTHER, modules: ['shrink', 'sharpen'] });
      const jobs = await h.recorded(other.status!.modules!.map((m) => m.jobName));
      const second = [...jobs.get(`${OTHER}-sharpen-abcde`)!.values()][0];
      expect(env(second, 's3path')).toBe(`${OUT}${OTHER}/abcdef-1/abcdef-1-stage-1.zip`);
      expect(env(second, 'SCENARIONAME')).toBe(OTHER);
      expect(other.status?.info).toBe(`${OUT}${OTHER}/abcdef-1/abcdef-1-final.zip`);

      expect((await operator(h, OTHER)).status).toMatchObject({
        active: 0,
        queued: 0,
        succeeded: 2,
        holders: [],
        queue: [],
      });
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: 1 });
      const all = parseMetrics(await scrape(h.fns[0]!.metricsUrl));
      const success = (scenarioName: string) =>
        samples(all, 'success_scenario_total', { scenarioName }).reduce((n, s) => n + s.value, 0);
      expect([success(OTHER), success(SCENARIO)]).toEqual([2, 1]);
      expect(samples(all, 'cascade_queued_runs').map((s) => [s.labels['scenario'], s.value])).toEqual([[SCENARIO, 0]]);

      // Not in CASCADE_SCENARIOS: the request is wrong (400, nothing created); allowed but absent: the deployment is (500).
      const refused = await post(h.url(), { turlinfo: 's3://in/d.tgz', iuid: 'defabc-4', scenario: 'elsewhere' });
      expect(refused).toMatchObject({ status: 400, body: { error: expect.stringContaining('"elsewhere"') } });
      const absent = await post(h.url(), { turlinfo: 's3://in/d.tgz', iuid: 'defabc-4', scenario: 'missing' });
      expect(absent).toMatchObject({
        status: 500,
        body: { error: expect.stringContaining('no CascadeAutoOperator "missing"') },
      });
      const invalid = await post(h.url(), { turlinfo: 's3://in/d.tgz', iuid: 'defabc-4', scenario: 'Not_A_Name' });
      expect(invalid.status).toBe(400);
      expect((await h.listRuns()).map((r) => r.metadata.name).sort()).toEqual([...runs].sort());
    },
  );

  it('each scenario queues under its own limit', { timeout: 300_000 }, async () => {
    const forever = (name: string) => [imageModule(name, {}, { delayMs: 3_600_000 })];
    h = await cascadeHarness({ modules: forever('grayscale'), operatorSpec: { maxConcurrentRuns: 1 } });
    await createOperator(h.custom, h.ns, OTHER, {
      scenarioconfig: { cascademodules: forever('shrink') },
      maxConcurrentRuns: 1,
    });
    const send = (iuid: string, scenario?: string) =>
      post(h!.url(), { turlinfo: 's3://in/x.tgz', iuid, ...(scenario ? { scenario } : {}) });
    expect((await send('aaaaa-1')).body['phase']).toBe('Pending');
    expect((await send('bbbbb-2', OTHER)).body['phase']).toBe('Pending');
    expect((await send('ccccc-3')).body['phase']).toBe('Queued');
    expect((await send('ddddd-4', OTHER)).body['phase']).toBe('Queued');
    await waitFor(async () => (await operator(h!, OTHER)).status?.queued === 1, {
      message: `${OTHER} has one run queued`,
    });
    expect((await operator(h, OTHER)).status).toMatchObject({
      active: 1,
      queued: 1,
      holders: [`${OTHER}-bbbbb`],
      queue: [`${OTHER}-ddddd`],
    });
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({
        active: 1,
        queued: 1,
        holders: [`${SCENARIO}-aaaaa`],
        queue: [`${SCENARIO}-ccccc`],
      });
    const queued = async () =>
      samples(parseMetrics(await scrape(h!.fns[0]!.metricsUrl)), 'cascade_queued_runs')
        .map((s) => [s.labels['scenario'], s.value])
        .sort();
    await waitFor(
      async () =>
        JSON.stringify(await queued()) ===
        JSON.stringify(
          [
            [SCENARIO, 1],
            [OTHER, 1],
          ].sort(),
        ),
      { timeoutMs: 30_000, message: 'cascade_queued_runs per scenario' },
    );
  });
});
