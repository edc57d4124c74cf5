// ISO 8601 durations as Knative's delivery settings take them (`backoffDelay`,
// `timeout`, `retryAfterMax`: `PT0.5S`, `PT1M`, `P1DT2H`), to milliseconds.
// Knative parses them with a period library that also takes years and
// months; a delivery setting never needs them, and their length in time is
// not fixed, so they are refused here. Pure.

const PATTERN =
  /^P(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000];

/** Milliseconds of an ISO 8601 duration of weeks, days, hours, minutes and seconds; throws on anything else. */
export function durationMs(text: string): number {
  const m = PATTERN.exec(text);
  const parts = m?.slice(1) ?? [];
  if (!m || parts.every((p) => p === undefined) || text.endsWith('T')) {
    throw new Error(`not an ISO 8601 duration of weeks, days, hours, minutes and seconds: ${JSON.stringify(text)}`);
  }
  return Math.round(
    parts.reduce((sum, p, i) => sum + (p === undefined ? 0 : Number(p.replace(',', '.')) * UNIT_MS[i]!), 0),
  );
}
