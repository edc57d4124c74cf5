// Ages and durations as kubectl prints them (the AGE column), and the finer
// elapsed time of `watch`. Pure.

/** kubectl's AGE: `45s`, `3m12s`, `25m`, `2h15m`, `5h`, `3d4h`, `12d`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return `${d}d${h % 24 ? `${h % 24}h` : ''}`;
  return `${d}d`;
}

/** Elapsed time of a step or run: `0.4s`, `12.3s`, `3m04s`, `1h02m`. */
export function formatElapsed(ms: number): string {
  const t = Math.max(0, ms);
  if (t < 60_000) return `${(Math.floor(t / 100) / 10).toFixed(1)}s`;
  const s = Math.floor(t / 1000);
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Milliseconds from `start` to `end` (or to `now` while it runs); undefined before it starts. */
export function span(start: string | undefined, end: string | undefined, now: number): number | undefined {
  if (!start) return undefined;
  return (end ? Date.parse(end) : now) - Date.parse(start);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as Go writes it (`90s`, `30m`, `1h30m`), `d` for days too: milliseconds, or undefined when it is none. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms;
}
