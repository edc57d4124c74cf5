// knative/monitoring/ stays consistent: every metric the Grafana dashboard
// queries is one the function exports (the Go controller's names) or one the
// kube-state-metrics configuration generates, and every field that
// configuration reads exists in the CRDs; the PodMonitor points at the ports
// of knative/service.yaml. A typo anywhere fails here. What the queries
// return is proved against a real Prometheus in test/monitoring.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse, loadAll } from 'js-yaml';
import { metricNames } from './promql-names.ts';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The Go controller's metrics (seed README), as the function exports them. */
const GO_COUNTERS_GAUGES = [
  'http_requests_total',
  'response_status',
  'success_scenario_total',
  'failed_scenario_total',
  'scenario_current_runs',
];
const GO_HISTOGRAMS = ['http_response_time_seconds', 'scenarion_execution_time_seconds', 'job_execution_time_seconds'];
const HISTOGRAM_SERIES = ['_bucket', '_sum', '_count'];

interface KsmMetric {
  name: string;
  each: {
    type: string;
    stateSet?: { list: string[]; path: string[] };
    gauge?: { path: string[]; nilIsZero?: boolean };
    info?: { labelsFromPath: Record<string, string[]> };
  };
}
interface KsmResource {
  groupVersionKind: { group: string; version: string; kind: string };
  metricNamePrefix: string;
  labelsFromPath: Record<string, string[]>;
  metrics: KsmMetric[];
}

const ksm = parse(read('knative/monitoring/kube-state-metrics-cascaderuns.yaml')) as {
  kind: string;
  spec: { resources: KsmResource[] };
};
const ksmNames = ksm.spec.resources.flatMap((r) => r.metrics.map((m) => `${r.metricNamePrefix}_${m.name}`));
const known = new Set([
  ...GO_COUNTERS_GAUGES,
  ...GO_HISTOGRAMS.flatMap((h) => HISTOGRAM_SERIES.map((s) => h + s)),
  ...ksmNames,
]);

interface Target {
  expr: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: { type: string; query?: string | { query: string } }[] };
}

const dashboard = JSON.parse(read('knative/monitoring/grafana-dashboard.json')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
const queries = [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => ({ where: 'templating', expr: typeof v.query === 'string' ? v.query : (v.query?.query ?? '') })),
];

describe('metricNames', () => {
  it.each([
    ['sum by (path) (rate(http_requests_total[$__rate_interval]))', ['http_requests_total']],
    [
      'histogram_quantile(0.95, sum by (le, path) (rate(http_response_time_seconds_bucket{path="/"}[5m])))',
      ['http_response_time_seconds_bucket'],
    ],
    ['a_total / on (x) group_left (y) b_total', ['a_total', 'b_total']],
    ['(time() - m{phase="Running"}) and on (namespace) (n == 1)', ['m', 'n']],
    ['label_values(scenario_current_runs, scenarioName)', ['scenario_current_runs']],
    ['label_values(a_count{namespace=~"$namespace"}, scenarioName)', ['a_count']],
    [
      '(x unless x offset 10m) or (changes(y[1h]) == 0) and on (a) min_over_time(z{p="R"}[1h]) > ns:r_1h:count',
      ['x', 'y', 'z', 'ns:r_1h:count'],
    ],
  ])('finds the metrics of %s', (expr, names) => {
    expect(metricNames(expr)).toEqual(names);
  });

  it('so a misspelt metric is unknown', () => {
    expect(metricNames('rate(http_request_total[5m])').filter((n) => !known.has(n))).toEqual(['http_request_total']);
  });
});

describe('knative/monitoring/grafana-dashboard.json', () => {
  it('queries something in every panel', () => {
    expect(panels.length).toBeGreaterThanOrEqual(7);
    for (const p of panels) expect(p.targets?.length, p.title).toBeGreaterThan(0);
  });

  it.each(queries.map((q) => [q.where, q.expr] as const))('%s: %s uses only known metrics', (_where, expr) => {
    const names = metricNames(expr);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => !known.has(n))).toEqual([]);
  });

  it("has the panels of the Go controller's README and uses each of its metrics", () => {
    const titles = panels.map((p) => p.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Request rate by path',
        'Response status codes',
        'HTTP latency percentiles',
        'Success vs failed scenarios',
        'Current runs',
        'Scenario execution time',
        'Per-job execution time by module',
      ]),
    );
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    for (const name of [...GO_COUNTERS_GAUGES, ...GO_HISTOGRAMS]) expect(used.has(name), name).toBe(true);
    expect(ksmNames.filter((n) => used.has(n)).length).toBeGreaterThanOrEqual(5);
  });

  it('selects a namespace in every query: one Cascade installation per namespace', () => {
    expect(dashboard.templating.list.map((v) => (v as { name?: string }).name)).toEqual([
      'datasource',
      'namespace',
      'scenario',
    ]);
    for (const q of queries.filter((x) => !x.expr.startsWith('label_values(http_requests_total,'))) {
      for (const name of metricNames(q.expr)) {
        for (const m of q.expr.matchAll(new RegExp(`(?<![\\w:])${name}(?![\\w:])(\\{[^}]*\\})?`, 'g'))) {
          expect(m[1] ?? '', `${q.where}: ${name} in ${q.expr}`).toContain('namespace=~"$namespace"');
        }
      }
    }
  });

  it('does not add up scenario_current_runs over replicas: each reports its whole namespace', () => {
    const current = panels.find((p) => p.title === 'Current runs')!.targets![0]!.expr;
    expect(current).toMatch(
      /^sum by \(scenarioName, OName, SName\) \(max by \(namespace, scenarioName, OName, SName\) \(scenario_current_runs\{/,
    );
  });

  it('groups "Runs created per hour" by labels of the side it keeps', () => {
    const created = panels.find((p) => p.title === 'Runs created per hour')!.targets![0]!.expr;
    const [, by, left] = /^count by \(([^)]*)\) \(([a-z_]+)\{/.exec(created)!;
    const info = ksm.spec.resources[0]!.metrics.find(
      (m) => `${ksm.spec.resources[0]!.metricNamePrefix}_${m.name}` === left,
    )!;
    expect(by!.split(', ').every((l) => l in (info.each.info?.labelsFromPath ?? {}))).toBe(true);
  });
});

type Schema = { properties?: Record<string, Schema>; type?: string; enum?: unknown[] };
const crdSchemas = new Map<string, Schema>(
  ['cascaderuns', 'cascadeautooperators'].flatMap((plural) =>
    loadAll(read(`crds/${plural}.cascade.cascade.net.yaml`)).map((doc) => {
      const crd = doc as {
        spec: { names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
      };
      const version = crd.spec.versions[0]!;
      return [`${crd.spec.names.kind}/${version.name}`, version.schema.openAPIV3Schema] as const;
    }),
  ),
);

const METADATA = new Set(['name', 'namespace', 'creationTimestamp', 'labels', 'annotations', 'uid']);

function resolve(schema: Schema, path: string[]): Schema | undefined {
  if (path[0] === 'metadata') return path.length === 2 && METADATA.has(path[1]!) ? { type: 'string' } : undefined;
  return path.reduce<Schema | undefined>((s, key) => s?.properties?.[key], schema);
}

function pathsOf(r: KsmResource): string[][] {
  return [
    ...Object.values(r.labelsFromPath),
    ...r.metrics.flatMap((m) => [
      ...(m.each.stateSet ? [m.each.stateSet.path] : []),
      ...(m.each.gauge ? [m.each.gauge.path] : []),
      ...Object.values(m.each.info?.labelsFromPath ?? {}),
    ]),
  ];
}

describe('knative/monitoring/kube-state-metrics-cascaderuns.yaml', () => {
  it('is a CustomResourceStateMetrics configuration for both kinds', () => {
    expect(ksm.kind).toBe('CustomResourceStateMetrics');
    expect(ksm.spec.resources.map((r) => r.groupVersionKind)).toEqual([
      { group: 'cascade.cascade.net', version: 'v1alpha1', kind: 'CascadeRun' },
      { group: 'cascade.cascade.net', version: 'v1alpha1', kind: 'CascadeAutoOperator' },
    ]);
  });

  it.each(ksm.spec.resources.flatMap((r) => pathsOf(r).map((p) => [r.groupVersionKind.kind, p.join('.'), r] as const)))(
    '%s: %s exists in the CRD',
    (_kind, path, r) => {
      const schema = crdSchemas.get(`${r.groupVersionKind.kind}/${r.groupVersionKind.version}`);
      expect(schema).toBeDefined();
      expect(resolve(schema!, path.split('.'))).toBeDefined();
    },
  );

  it('has a StateSet over exactly the phases the CRD allows', () => {
    const phase = ksm.spec.resources[0]!.metrics.find((m) => m.each.type === 'StateSet')!.each.stateSet!;
    const allowed = resolve(crdSchemas.get('CascadeRun/v1alpha1')!, phase.path)?.enum;
    expect(phase.list).toEqual(['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled']);
    expect([...phase.list].sort()).toEqual([...(allowed as string[])].sort());
  });

  it('turns the run times, the current step and the operator counters into gauges', () => {
    const gauges = ksm.spec.resources.flatMap((r) =>
      r.metrics.filter((m) => m.each.type === 'Gauge').map((m) => m.each.gauge!.path.join('.')),
    );
    expect(gauges).toEqual(
      expect.arrayContaining([
        'status.startTime',
        'status.completionTime',
        'status.currentStep',
        'status.active',
        'status.succeeded',
        'status.failed',
        'status.cancelled',
      ]),
    );
  });

  it('reads every status field with nilIsZero: a run without a completionTime yet is 0, not an error at each scrape', () => {
    const statusGauges = ksm.spec.resources.flatMap((r) => r.metrics.filter((m) => m.each.gauge?.path[0] === 'status'));
    expect(statusGauges.length).toBe(8);
    for (const m of statusGauges) expect(m.each.gauge!.nilIsZero, m.name).toBe(true);
  });

  it('is run with --custom-resource-state-only, never with --resources naming the custom resources', () => {
    const text = read('knative/monitoring/kube-state-metrics-cascaderuns.yaml') + read('docs/operations.md');
    expect(text).toContain('--custom-resource-state-only');
    expect(text).not.toMatch(/--resources=[\w,]*cascade/);
  });
});

/** Prometheus's `replace` relabeling: the regex anchored at both ends, ${n} and $n expanded. */
export function relabelReplace(value: string, regex: string, replacement: string): string | undefined {
  const m = new RegExp(`^(?:${regex})$`).exec(value);
  return m
    ? replacement.replace(
        /\$\{(\d+)\}|\$(\d+)/g,
        (_all, a: string | undefined, b: string | undefined) => m[Number(a ?? b)] ?? '',
      )
    : undefined;
}

interface PodMetricsEndpoint {
  port?: string;
  portNumber?: number;
  targetPort?: unknown;
  path: string;
  interval: string;
  relabelings?: { sourceLabels: string[]; regex: string; targetLabel: string; replacement: string; action: string }[];
}
const podMonitor = parse(read('knative/monitoring/podmonitor.yaml')) as {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: PodMetricsEndpoint[] };
};
const service = parse(read('knative/service.yaml')) as {
  metadata: { name: string };
  spec: {
    template: {
      metadata: { annotations: Record<string, string> };
      spec: { containers: { ports: { containerPort: number }[]; env: { name: string; value?: string }[] }[] };
    };
  };
};

describe('knative/monitoring/podmonitor.yaml', () => {
  const [fn, queueProxy] = podMonitor.spec.podMetricsEndpoints;
  const container = service.spec.template.spec.containers[0]!;

  it('is a monitoring.coreos.com/v1 PodMonitor selecting the pods of the Knative Service', () => {
    expect([podMonitor.apiVersion, podMonitor.kind]).toEqual(['monitoring.coreos.com/v1', 'PodMonitor']);
    expect(podMonitor.spec.selector.matchLabels).toEqual({ 'serving.knative.dev/service': service.metadata.name });
    expect(podMonitor.spec.podMetricsEndpoints).toHaveLength(2);
  });

  it('finds the one port Knative lets the function declare, and none other: one target per pod', () => {
    expect(container.ports.map((p) => p.containerPort)).toEqual([fn!.portNumber]);
    expect(fn).not.toHaveProperty('targetPort');
    expect(fn).not.toHaveProperty('port');
  });

  it('moves the target to the metrics port of the pod, IPv4 and IPv6 alike', () => {
    const metricsPort = service.spec.template.metadata.annotations['prometheus.io/port'];
    expect(metricsPort).toBe('9095');
    expect(fn!.path).toBe(service.spec.template.metadata.annotations['prometheus.io/path']);
    expect(fn!.relabelings).toHaveLength(1);
    const r = fn!.relabelings![0]!;
    expect([r.action, r.sourceLabels, r.targetLabel]).toEqual(['replace', ['__address__'], '__address__']);
    expect(relabelReplace('10.1.2.3:8080', r.regex, r.replacement)).toBe(`10.1.2.3:${metricsPort}`);
    expect(relabelReplace('[fd00::1:2]:8080', r.regex, r.replacement)).toBe(`[fd00::1:2]:${metricsPort}`);
  });

  it('scrapes queue-proxy on the metrics port Knative declares on it', () => {
    expect(queueProxy).toEqual({ port: 'http-usermetric', path: '/metrics', interval: fn!.interval });
  });
});
