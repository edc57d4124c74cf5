// Pure statistics for the benchmarks: percentiles of samples, and the median
// and spread of one figure measured over several repeats.

/** Nearest-rank percentile (p in 0..100) of unsorted samples; undefined when there are none. */
export function percentile(samples: readonly number[], p: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface Distribution {
  n: number;
  p50?: number | undefined;
  p95?: number | undefined;
  p99?: number | undefined;
  max?: number | undefined;
  mean?: number | undefined;
}

export function distribution(samples: readonly number[]): Distribution {
  if (samples.length === 0) return { n: 0 };
  const sum = samples.reduce((a, b) => a + b, 0);
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: Math.max(...samples),
    mean: sum / samples.length,
  };
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Median (mean of the middle two for an even count) and range over repeats. */
export function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, n: sorted.length };
}

/**
 * Every numeric leaf of several results of the same shape, as the median and
 * spread across them; non-numeric leaves are taken from the first result.
 */
export function combineRepeats(results: readonly unknown[]): unknown {
  const first = results[0];
  if (typeof first === 'number') {
    return spread(results.filter((r): r is number => typeof r === 'number'));
  }
  if (Array.isArray(first)) {
    return first.map((_, i) => combineRepeats(results.map((r) => (r as unknown[] | undefined)?.[i])));
  }
  if (first && typeof first === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(first)) {
      out[key] = combineRepeats(results.map((r) => (r as Record<string, unknown> | undefined)?.[key]));
    }
    return out;
  }
  return first;
}
