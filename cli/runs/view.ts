// The rows of `list` and `get`: a run, and one row per module. Pure.
import { formatAge, formatElapsed, span } from '../format/duration.ts';
import type { Palette } from '../format/colour.ts';
import { createdAt, phaseOf, stepState, wasReached, type ModuleRecordView, type RunObject } from './run-object.ts';

/** Every phase a run shows: `list --phase` takes one of these, whatever its case. */
export const PHASES = ['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'] as const;

export const LIST_HEADERS = ['name', 'scenario', 'phase', 'step', 'age', 'duration'] as const;
export const LIST_WIDE_HEADERS = [...LIST_HEADERS, 'iuid', 'module', 'reason'] as const;
export const MODULE_HEADERS = [
  'step',
  'module',
  'job',
  'phase',
  'started',
  'duration',
  'result',
  'reason',
  'attempts',
] as const;

/** When the run started; its creation for one not started yet (Queued, Pending). */
export function startedAt(run: RunObject): number {
  const t = run.status?.startTime;
  return t ? new Date(t).getTime() : createdAt(run);
}

export interface Selection {
  phase?: string;
  /** Only runs started (or, not started yet, created) within this many milliseconds before `now`. */
  sinceMs?: number;
  /** At most this many runs, the newest. */
  limit?: number;
  now?: number;
}

/** Newest first (by start time, then name), only those in `phase` and started within `sinceMs`, at most `limit`. */
export function selectRuns(runs: readonly RunObject[], sel: Selection = {}): RunObject[] {
  const { phase, sinceMs, limit, now = Date.now() } = sel;
  const chosen = runs
    .filter((r) => phase === undefined || phaseOf(r).toLowerCase() === phase.toLowerCase())
    .filter((r) => sinceMs === undefined || startedAt(r) >= now - sinceMs)
    .sort((a, b) => startedAt(b) - startedAt(a) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return limit === undefined ? chosen : chosen.slice(0, limit);
}

/**
 * `2/3`: the step being run (or the last one run), counted from 1, of the
 * number of modules; undefined before the first step starts (a Queued or
 * Pending run), as kubectl's STEP column is empty then.
 */
export function stepOf(run: RunObject): string | undefined {
  const { spec = {}, status = {} } = run;
  const records = status.modules ?? [];
  const current = status.currentStep ?? records.filter(wasReached).at(-1)?.step;
  if (current === undefined) return undefined;
  return `${current + 1}/${spec.modules?.length ?? records.length}`;
}

function reasonOf(run: RunObject): string {
  return run.status?.conditions?.find((c) => c.type === 'Succeeded')?.reason ?? '';
}

export function runRow(run: RunObject, now: number, p: Palette, wide = false): string[] {
  const { spec = {}, status = {} } = run;
  const elapsed = span(status.startTime, status.completionTime, now);
  const row = [
    run.metadata.name ?? '',
    spec.scenarioname ?? '',
    p.phase(phaseOf(run)),
    stepOf(run) ?? '-',
    formatAge(now - createdAt(run)),
    elapsed === undefined ? '-' : formatElapsed(elapsed),
  ];
  return wide ? [...row, spec.pid ?? '', status.currentModule ?? '', reasonOf(run)] : row;
}

/** The record of each module of the run, in order; a module not reached yet has none. */
export function moduleSlots(run: RunObject): { step: number; name: string; record?: ModuleRecordView }[] {
  const names = run.spec?.modules ?? [];
  const records = run.status?.modules ?? [];
  const count = Math.max(names.length, ...records.map((r) => r.step + 1));
  return Array.from({ length: count }, (_, step) => {
    const record = records.find((r) => r.step === step);
    return { step, name: record?.name ?? names[step] ?? '', ...(record ? { record } : {}) };
  });
}

function attemptsOf(record: ModuleRecordView): string {
  return String(record.attempt ?? (record.attempts?.length ?? 0) + 1);
}

/** One row per step, counted from 1 as `Step: 2/3` counts; a step not reached is `Waiting`, with no Job yet. */
export function moduleRows(run: RunObject, now: number, p: Palette): string[][] {
  return moduleSlots(run).map(({ step, name, record }) => {
    if (!record || !wasReached(record)) return [String(step + 1), name, '-', p.phase('Waiting'), '-', '-', '', '', '0'];
    const elapsed = span(record.startTime, record.completionTime, now);
    // A retry or resume not started yet: its Job is made when it starts.
    const job = record.startTime || record.phase !== 'Pending' ? record.jobName : '-';
    return [
      String(step + 1),
      name,
      job,
      p.phase(stepState(record)),
      record.startTime ? `${formatAge(now - Date.parse(record.startTime))} ago` : '-',
      elapsed === undefined ? '-' : formatElapsed(elapsed),
      record.result ?? '',
      record.reason ?? '',
      attemptsOf(record),
    ];
  });
}
