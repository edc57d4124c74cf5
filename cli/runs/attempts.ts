// `get`'s attempts: every attempt of each step that had more than one (a
// retry or a resume), oldest first, and a retry still waiting for its
// backoff with the time it is due, as `argo get` shows retry nodes. Pure.
import type { Palette } from '../format/colour.ts';
import { formatAge, formatElapsed, span } from '../format/duration.ts';
import type { AttemptView, ModuleRecordView, RunObject } from './run-object.ts';
import { moduleSlots } from './view.ts';

export const ATTEMPT_HEADERS = [
  'step',
  'module',
  'attempt',
  'trigger',
  'job',
  'phase',
  'started',
  'duration',
  'retry at',
  'reason',
] as const;

/** Whether the step had, or waits for, another attempt than its first. */
const retried = (r: ModuleRecordView) => (r.attempts?.length ?? 0) > 0 || (r.attempt ?? 1) > 1 || Boolean(r.retryAt);

function row(
  at: { step: number; name: string },
  a: AttemptView & { retryAt?: string },
  now: number,
  p: Palette,
): string[] {
  const elapsed = span(a.startTime, a.completionTime, now);
  const waiting = !a.startTime && a.phase === 'Pending';
  return [
    String(at.step + 1),
    at.name,
    String(a.attempt),
    a.trigger ?? 'Initial',
    waiting ? '-' : a.jobName,
    p.phase(a.phase),
    a.startTime ? `${formatAge(now - Date.parse(a.startTime))} ago` : '-',
    elapsed === undefined ? '-' : formatElapsed(elapsed),
    a.retryAt ?? '-',
    a.reason ?? '',
  ];
}

/** One row per attempt of each step retried or resumed, the current attempt last; none for a run without any. */
export function attemptRows(run: RunObject, now: number, p: Palette): string[][] {
  return moduleSlots(run).flatMap(({ step, name, record }) => {
    if (!record || !retried(record)) return [];
    const current = { ...record, attempt: record.attempt ?? (record.attempts?.length ?? 0) + 1 };
    return [...(record.attempts ?? []), current].map((a) => row({ step, name }, a, now, p));
  });
}
