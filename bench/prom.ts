// The Prometheus text format, as much as the benchmarks need: parse samples,
// subtract a scrape from a later one, and sum the API server's
// apiserver_request_total by resource and verb. Pure.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of text.matchAll(LABEL))
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  return labels;
}

export function parseMetrics(text: string, only?: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (only && !line.startsWith(only)) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (!Number.isFinite(value)) continue;
    out.push({ name: m[1]!, labels: m[2] ? parseLabels(m[2]) : {}, value });
  }
  return out;
}

const key = (s: Sample) =>
  `${s.name}{${Object.entries(s.labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}}`;

/** after − before for every series of `after` (a series new in `after` counts from 0); counters only. */
export function diffSamples(before: readonly Sample[], after: readonly Sample[]): Sample[] {
  const old = new Map(before.map((s) => [key(s), s.value]));
  return after.map((s) => ({ ...s, value: s.value - (old.get(key(s)) ?? 0) })).filter((s) => s.value !== 0);
}

/** The resources whose API requests are Cascade's cost. */
export const CASCADE_RESOURCES = ['cascaderuns', 'cascadeautooperators', 'jobs', 'events'] as const;
export const WRITE_VERBS = ['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'] as const;

export interface RequestCount {
  /** resource, or resource/subresource. */
  resource: string;
  verb: string;
  count: number;
}

/** apiserver_request_total summed by resource(/subresource) and verb, for the given resources. */
export function requestCounts(
  samples: readonly Sample[],
  resources: readonly string[] = CASCADE_RESOURCES,
): RequestCount[] {
  const sums = new Map<string, RequestCount>();
  for (const s of samples) {
    if (s.name !== 'apiserver_request_total') continue;
    const r = s.labels.resource ?? '';
    if (!resources.includes(r)) continue;
    const resource = s.labels.subresource ? `${r}/${s.labels.subresource}` : r;
    const verb = s.labels.verb ?? '?';
    const k = `${resource} ${verb}`;
    const c = sums.get(k) ?? { resource, verb, count: 0 };
    c.count += s.value;
    sums.set(k, c);
  }
  return [...sums.values()].sort((a, b) => a.resource.localeCompare(b.resource) || a.verb.localeCompare(b.verb));
}

export interface CostSummary {
  reads: number;
  writes: number;
  /** Writes without Kubernetes Events and without the Job controller's jobs/status. */
  cascadeWrites: number;
  events: number;
  /** "resource verb" → count. */
  byVerb: Record<string, number>;
}

/**
 * Sorted into reads and writes. WATCH is left out (a long request counted when
 * it starts). jobs/status is written by the Job controller, not by Cascade.
 */
export function summarizeCost(counts: readonly RequestCount[]): CostSummary {
  const s: CostSummary = { reads: 0, writes: 0, cascadeWrites: 0, events: 0, byVerb: {} };
  for (const c of counts) {
    if (c.verb === 'WATCH') continue;
    s.byVerb[`${c.resource} ${c.verb}`] = c.count;
    const write = (WRITE_VERBS as readonly string[]).includes(c.verb);
    if (!write) {
      s.reads += c.count;
      continue;
    }
    s.writes += c.count;
    if (c.resource === 'events') s.events += c.count;
    else if (c.resource !== 'jobs/status') s.cascadeWrites += c.count;
  }
  return s;
}

/** Every figure of a summary divided by `n` (per run, per transition). */
export function perUnit(s: CostSummary, n: number): CostSummary {
  const d = (v: number) => (n > 0 ? v / n : 0);
  return {
    reads: d(s.reads),
    writes: d(s.writes),
    cascadeWrites: d(s.cascadeWrites),
    events: d(s.events),
    byVerb: Object.fromEntries(Object.entries(s.byVerb).map(([k, v]) => [k, d(v)])),
  };
}
