// knative/monitoring/prometheusrule.yaml, Cascade's alerts: its rules pass
// `promtool check rules`, and `promtool test rules` of
// test/fixtures/prometheus-rules.test.yaml (realistic series; each alert fires
// where it should and stays quiet everywhere else), with the pinned promtool
// of the global set-up; a copy with a threshold changed fails those tests.
// The PrometheusRule passes a server-side dry run against the real CRD of
// prometheus-operator. And every series a rule reads is one a real program
// serves here: kube-state-metrics' CronJob metrics for knative/'s janitor
// CronJob, the runs' metrics of kube-state-metrics-cascaderuns.yaml, and
// queue-proxy's request count in front of a dead-letter sink.
import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { startDeadLetterSink, type DeadLetterSink } from '../local/stand-ins/broker/dead-letter-sink.ts';
import {
  cascadeRunsConfig,
  ensureKubeStateMetrics,
  startKubeStateMetrics,
  type RunningKubeStateMetrics,
} from '../local/kube-state-metrics/kube-state-metrics.ts';
import { startQueueProxy, type QueueProxy } from '../local/knative/queue-proxy/queue-proxy.ts';
import { ensurePromtool } from '../local/prometheus/binaries.ts';
import { tempDir } from '../local/temp-dir.ts';
import { metricNames } from '../scripts/promql-names.ts';
import { QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import { installPrometheusOperatorCrd } from './support/prometheus-operator-crds.ts';
import { dryRun } from './support/dry-run.ts';
import { adminKubeconfigPath, createTestNamespace, waitFor } from './support/kube.ts';
import { parseMetrics, samples, scrape } from './support/ops.ts';

const RULE = join(repoRoot, 'knative/monitoring/prometheusrule.yaml');
const FIXTURE = join(repoRoot, 'test/fixtures/prometheus-rules.test.yaml');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
}
interface PrometheusRule {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { groups: { name: string; rules: Rule[] }[] };
}

const rule = () => load(readFileSync(RULE, 'utf8')) as PrometheusRule;
const rules = (r: PrometheusRule) => r.spec.groups.flatMap((g) => g.rules);
const kubectl = (...args: string[]) => runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args]);

// The pinned promtool and kube-state-metrics, built on a first run.
const binaries = { promtool: '', kubeStateMetrics: '' };
beforeAll(async () => {
  [binaries.promtool, binaries.kubeStateMetrics] = await Promise.all([ensurePromtool(), ensureKubeStateMetrics()]);
});
let ksm: RunningKubeStateMetrics | undefined;
let qp: QueueProxy | undefined;
let sink: DeadLetterSink | undefined;
afterEach(async () => {
  await ksm?.stop();
  await qp?.stop('SIGKILL');
  await sink?.stop();
  [ksm, qp, sink] = [undefined, undefined, undefined];
});

/** Runs promtool with `args`; resolves to its exit code and output. */
function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(binaries.promtool, args, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Writes the rule's spec as a Prometheus rule file, and the fixture beside it; returns the fixture's path. */
function promtoolFiles(r: PrometheusRule): string {
  const dir = tempDir('cascade-prometheus-rules-');
  writeFileSync(join(dir, 'cascade.rules.yaml'), dump(r.spec));
  copyFileSync(FIXTURE, join(dir, 'prometheus-rules.test.yaml'));
  return join(dir, 'prometheus-rules.test.yaml');
}

describe('knative/monitoring/prometheusrule.yaml', () => {
  it('has the four alerts, each with a runbook in docs/operations.md under its name', () => {
    const alerts = rules(rule()).filter((x) => x.alert);
    expect(alerts.map((a) => a.alert)).toEqual([
      'CascadeJanitorFailing',
      'CascadeRunStalled',
      'CascadeDeadLetters',
      'CascadeRunFailureRatioHigh',
    ]);
    const operations = readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8');
    for (const a of alerts as (Rule & { annotations: { runbook: string } })[]) {
      expect(a.annotations.runbook).toBe(`docs/operations.md#${a.alert!.toLowerCase()}`);
      expect(operations).toMatch(new RegExp(`^#### \`${a.alert}\`$`, 'm'));
    }
  });

  it('passes promtool check rules, and promtool test rules with the series of the fixture', async () => {
    const test = promtoolFiles(rule());
    const check = await promtool('check', 'rules', join(test, '..', 'cascade.rules.yaml'));
    expect(check, check.output).toMatchObject({ code: 0 });
    expect(check.output).toContain(`SUCCESS: ${rules(rule()).length} rules found`);
    const tested = await promtool('test', 'rules', test);
    expect(tested.output).toContain('SUCCESS');
    expect(tested.code, tested.output).toBe(0);
  });

  it.each([
    ['the janitor given 12 minutes, not 10', 'CascadeJanitorFailing', (e: string) => e.replaceAll('> 600', '> 720')],
    ['a stall limit of 50 minutes', 'CascadeRunStalled', (e: string) => e.replace('> 3600', '> 3000')],
    [
      'a new series counted for a minute only',
      'CascadeDeadLetters',
      (e: string) => e.replace('offset 10m', 'offset 1m'),
    ],
    ['a failure ratio of a half', 'CascadeRunFailureRatioHigh', (e: string) => e.replace('> 0.2', '> 0.5')],
  ])('fails promtool test rules with %s', async (_what, alert, change) => {
    const broken = rule();
    const target = rules(broken).find((x) => x.alert === alert)!;
    const before = target.expr;
    target.expr = change(target.expr);
    expect(target.expr).not.toBe(before);
    const tested = await promtool('test', 'rules', promtoolFiles(broken));
    expect(tested.code).toBe(1);
    expect(tested.output).toContain(`alertname: ${alert}`);
  });

  it('passes a server-side dry run against the real PrometheusRule CRD, and a broken copy does not', async () => {
    await installPrometheusOperatorCrd('prometheusrules');
    const ns = await createTestNamespace('cascade-prometheusrule');
    const check = (doc: unknown) => dryRun([doc], { namespace: ns, strict: true });
    expect((await check(rule())).trim()).toBe('prometheusrule.monitoring.coreos.com/cascade');
    const misspelt = rule() as PrometheusRule & { spec: { groups: Record<string, unknown>[] } };
    misspelt.spec.groups[0]!.rule = misspelt.spec.groups[0]!.rules;
    await expect(check(misspelt)).rejects.toThrow(/unknown field/);
  });
});

describe('every series the rules read is served by a real program here', () => {
  it(
    "kube-state-metrics for knative/'s janitor CronJob and Cascade's CRDs, and queue-proxy in front of a dead-letter sink",
    async () => {
      // knative/'s janitor CronJob, suspended, with a pass that succeeded
      const ns = await createTestNamespace('cascade-rules-series');
      const cronJob = load(readFileSync(join(repoRoot, 'knative/janitor-cronjob.yaml'), 'utf8')) as {
        spec: { suspend?: boolean };
      };
      cronJob.spec.suspend = true;
      const dir = tempDir('cascade-rules-series-');
      writeFileSync(join(dir, 'cronjob.yaml'), dump(cronJob));
      await kubectl('apply', '-n', ns, '-f', join(dir, 'cronjob.yaml'));
      const lastSuccess = '2026-12-01T10:00:00Z';
      await kubectl(
        'patch',
        '-n',
        ns,
        'cronjob',
        'cascade-janitor',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { lastSuccessfulTime: lastSuccess } }),
      );
      ksm = await startKubeStateMetrics(binaries.kubeStateMetrics, adminKubeconfigPath(), [], ['cronjobs']);
      const janitor = { namespace: ns, cronjob: 'cascade-janitor' };
      const fromKsm = await waitFor(
        async () => {
          const all = parseMetrics(await scrape(ksm!.metricsUrl));
          return samples(all, 'kube_cronjob_status_last_successful_time', janitor).length > 0 && all;
        },
        { message: "kube-state-metrics serves the janitor CronJob's series" },
      );
      expect(samples(fromKsm, 'kube_cronjob_status_last_successful_time', janitor).map((s) => s.value)).toEqual([
        Date.parse(lastSuccess) / 1000,
      ]);
      expect(samples(fromKsm, 'kube_cronjob_created', janitor)).toHaveLength(1);

      // a dead letter, posted through queue-proxy configured as Knative configures the sink's
      sink = await startDeadLetterSink();
      qp = await startQueueProxy({
        userPort: Number(new URL(sink.url).port),
        namespace: ns,
        serviceFile: join(repoRoot, 'knative/dead-letter-sink.yaml'),
      });
      await qp.waitReady();
      const posted = await fetch(qp.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-id': 'dead-1',
          'ce-type': 'net.cascade.run.requested.v1',
          'ce-source': 'test',
        },
        body: JSON.stringify({ iuid: 'x' }),
      });
      expect(posted.status).toBe(202);
      const fromQueueProxy = parseMetrics(await scrape(qp.metricsUrl));
      expect(
        samples(fromQueueProxy, 'kn_serving_invocation_duration_seconds_count', { http_response_status_code: '202' }),
      ).toMatchObject([{ value: 1 }]);

      // Cascade's runs: the metric names kube-state-metrics-cascaderuns.yaml makes (their values: test/monitoring.test.ts)
      const config = load(readFileSync(cascadeRunsConfig, 'utf8')) as {
        spec: { resources: { metricNamePrefix: string; metrics: { name: string }[] }[] };
      };
      const runMetrics = config.spec.resources.flatMap((r) => r.metrics.map((m) => `${r.metricNamePrefix}_${m.name}`));

      const all = rules(rule());
      const recorded = all.flatMap((x) => (x.record ? [x.record] : []));
      const served = new Set([
        ...fromKsm.map((s) => s.name),
        ...fromQueueProxy.map((s) => s.name),
        ...runMetrics,
        ...recorded,
      ]);
      const read = [...new Set(all.flatMap((x) => metricNames(x.expr)))];
      expect(read.length).toBeGreaterThanOrEqual(8);
      expect(read.filter((name) => !served.has(name))).toEqual([]);
    },
    QUEUE_PROXY_TEST.timeout,
  );
});
