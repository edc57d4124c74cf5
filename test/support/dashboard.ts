// The Grafana dashboard's queries as Grafana would send them (variables
// filled in), and what they must return, computed without Prometheus: from
// counter deltas read straight off the function's /metrics, by PromQL's own
// definitions (sum by, histogram_quantile's linear interpolation).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../local/cluster/paths.ts';
import type { Sample } from './ops.ts';

export interface PanelQuery {
  panel: string;
  refId: string;
  expr: string;
}

interface Panel {
  type: string;
  title: string;
  targets?: { refId: string; expr: string }[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
}

const dashboard = JSON.parse(readFileSync(join(repoRoot, 'knative/monitoring/grafana-dashboard.json'), 'utf8')) as {
  panels: Panel[];
  templating: { list: Variable[] };
};

/** Every target of every panel (rows included), in the dashboard's order. */
export function panelQueries(): PanelQuery[] {
  return dashboard.panels
    .flatMap((p) => [p, ...(p.panels ?? [])])
    .flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })));
}

/** The query of a variable of type query (label_values(...)). */
export function variableQuery(name: string): string {
  const v = dashboard.templating.list.find((x) => x.name === name);
  if (!v || v.type !== 'query') throw new Error(`no query variable ${name}`);
  return typeof v.query === 'string' ? v.query : v.query!.query;
}

/** Grafana's interpolation: `$name` and `${name}` replaced, longest names first. */
export function fillVariables(expr: string, values: Record<string, string>): string {
  let out = expr;
  for (const name of Object.keys(values).sort((a, b) => b.length - a.length)) {
    out = out.split(`\${${name}}`).join(values[name]!).split(`$${name}`).join(values[name]!);
  }
  const left = /\$\{?\w+/.exec(out);
  if (left) throw new Error(`variable ${left[0]} left in ${out}`);
  return out;
}

/** label_values(metric{selector}, label) as Grafana sends it: a label and a series selector. */
export function labelValuesQuery(query: string): { label: string; match: string } {
  const m = /^label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)$/.exec(query);
  if (!m) throw new Error(`not a label_values() query: ${query}`);
  return { match: m[1]!, label: m[2]! };
}

const key = (labels: Record<string, string>, by: string[]) => JSON.stringify(by.map((l) => labels[l] ?? ''));

/** Per series of `name`: its value in `after` minus its value in `before` (absent before = 0). */
export function deltas(before: Sample[], after: Sample[], name: string): Sample[] {
  const id = (s: Sample) => JSON.stringify(Object.entries(s.labels).sort());
  const was = new Map(before.filter((s) => s.name === name).map((s) => [id(s), s.value]));
  return after.filter((s) => s.name === name).map((s) => ({ ...s, value: s.value - (was.get(id(s)) ?? 0) }));
}

/** `sum by (by)` of the samples, as a map from the group's label values (JSON) to the sum. */
export function sumBy(samples: Sample[], by: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) out.set(key(s.labels, by), (out.get(key(s.labels, by)) ?? 0) + s.value);
  return out;
}

/**
 * PromQL's histogram_quantile over classic buckets (cumulative counts by
 * upper bound): the bucket holding the rank, linear interpolation inside it,
 * the lower bound 0 for the first bucket; the highest finite bound when the
 * rank falls in +Inf; NaN without observations.
 */
export function histogramQuantile(q: number, buckets: { le: number; count: number }[]): number {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (sorted.length < 2 || sorted.at(-1)!.le !== Infinity || total === 0) return NaN;
  const rank = q * total;
  const b = sorted.findIndex((x) => x.count >= rank);
  if (b === sorted.length - 1) return sorted[b - 1]!.le;
  if (b === 0 && sorted[0]!.le <= 0) return sorted[0]!.le;
  const start = b === 0 ? 0 : sorted[b - 1]!.le;
  const below = b === 0 ? 0 : sorted[b - 1]!.count;
  return start + (sorted[b]!.le - start) * ((rank - below) / (sorted[b]!.count - below));
}

/** histogram_quantile(q, sum by (le, ...by) (buckets)) for every group of `by`. */
export function quantileBy(q: number, bucketSamples: Sample[], by: string[]): Map<string, number> {
  const groups = new Map<string, Map<number, number>>();
  for (const s of bucketSamples) {
    const g = groups.get(key(s.labels, by)) ?? new Map<number, number>();
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    g.set(le, (g.get(le) ?? 0) + s.value);
    groups.set(key(s.labels, by), g);
  }
  return new Map(
    [...groups].map(([k, g]) => [
      k,
      histogramQuantile(
        q,
        [...g].map(([le, count]) => ({ le, count })),
      ),
    ]),
  );
}

/** A query's result as the same kind of map: group label values (JSON) to value. */
export function resultBy(
  result: { metric: Record<string, string>; value: number }[],
  by: string[],
): Map<string, number> {
  return new Map(result.map((r) => [key(r.metric, by), r.value]));
}
