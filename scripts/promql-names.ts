// The metric names a PromQL expression reads, for the checks that every
// query of knative/monitoring/ reads only metrics something serves
// (scripts/monitoring.test.ts, test/prometheus-rules.test.ts). Pure.

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/** Metric names in a PromQL expression (or a Grafana label_values() query). */
export function metricNames(expr: string): string[] {
  const labelValues = /^label_values\(\s*([a-zA-Z_:][\w:]*)\s*(?:\{[^}]*\})?\s*,/.exec(expr.trim());
  if (labelValues) return [labelValues[1]!];
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [...bare.matchAll(/(?<![\w$.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)].map((m) => m[1]!);
  return [...new Set(names.filter((n) => !KEYWORDS.has(n.toLowerCase())))];
}
