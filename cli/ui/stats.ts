// The scenario page's two charts, computed from the runs themselves (no
// Prometheus): runs ended per hour by outcome over the last 24 hours, and
// each module's durations over the runs that ran it. Pure.
import type { RunObject } from '../runs/run-object.ts';
import type { HourCount, ModuleDurations } from './protocol.ts';

const HOUR = 3_600_000;
export const HOURS = 24;
const OUTCOMES = ['Succeeded', 'Failed', 'Cancelled'] as const;

export function runsPerHour(runs: Iterable<RunObject>, now: number): HourCount[] {
  const last = Math.floor(now / HOUR) * HOUR;
  const first = last - (HOURS - 1) * HOUR;
  const hours: HourCount[] = Array.from({ length: HOURS }, (_, i) => ({
    hour: new Date(first + i * HOUR).toISOString(),
    Succeeded: 0,
    Failed: 0,
    Cancelled: 0,
  }));
  for (const run of runs) {
    const phase = OUTCOMES.find((o) => o === run.status?.phase);
    const at = run.status?.completionTime ? Date.parse(run.status.completionTime) : NaN;
    const i = Math.floor((at - first) / HOUR);
    if (phase && i >= 0 && i < HOURS) hours[i]![phase]++;
  }
  return hours;
}

/** Each module's finished attempts (succeeded or failed), in the scenario's module order. */
export function moduleDurations(runs: Iterable<RunObject>, modules: readonly string[]): ModuleDurations[] {
  const by = new Map<string, number[]>(modules.map((m) => [m, []]));
  const records = [...runs].flatMap((run) => run.status?.modules ?? []);
  for (const m of records) {
    const finished = [...((m.attempts ?? []) as (typeof m)[]), m].filter(
      (a) => a.startTime && a.completionTime && (a.phase === 'Succeeded' || a.phase === 'Failed'),
    );
    const list = by.get(m.name) ?? [];
    for (const a of finished) list.push(Date.parse(a.completionTime!) - Date.parse(a.startTime!));
    by.set(m.name, list);
  }
  return [...by].map(([module, durations]) => ({ module, durations: durations.sort((a, b) => a - b) }));
}
