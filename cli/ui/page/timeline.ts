// A run's timeline: one bar per step and attempt on a shared time axis, from
// the times the run's status records. An attempt whose pod the API server
// still has is split at its pod's start: waiting for its pod, then running.
// Pure: the SVG is drawn elsewhere.
import { wasReached, type ModuleRecordView, type RunObject } from '../../runs/run-object.ts';

/** What a bar shows: the wait before the first step, a retry's backoff, or an attempt in its phase. */
export type BarKind = 'queued' | 'backoff' | 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';

export interface Bar {
  /** The row's label: `1 grayscale`, `2 fail · attempt 2`, `waiting to start`. */
  label: string;
  step: number;
  attempt: number;
  kind: BarKind;
  start: number;
  end: number;
  /** Still going: it ends now. */
  open: boolean;
}

export interface Timeline {
  bars: Bar[];
  from: number;
  to: number;
}

interface AttemptTimes {
  attempt: number;
  phase: string;
  jobName?: string;
  startTime?: string;
  completionTime?: string;
}

/** When each Job's pod first ran a container, by Job name: known while the API server still has the pod. */
export type PodStarts = ReadonlyMap<string, number>;

const t = (iso: string | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);

const KINDS: readonly string[] = ['Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'];
const kindOf = (phase: string): BarKind => (KINDS.includes(phase) ? (phase as BarKind) : 'Running');

/** Every attempt of a step, earlier ones first, the current one last. */
function attemptsOf(m: ModuleRecordView): AttemptTimes[] {
  const earlier = (m.attempts ?? []) as AttemptTimes[];
  return [
    ...earlier,
    {
      attempt: m.attempt ?? 1,
      phase: m.phase,
      jobName: m.jobName,
      startTime: m.startTime,
      completionTime: m.completionTime,
    },
  ];
}

/**
 * An attempt's bars from its start: the wait for its pod, when its pod's
 * start is known and later, then the attempt in its phase.
 */
function attemptBars(
  bar: Omit<Bar, 'kind' | 'start' | 'end' | 'open'>,
  a: AttemptTimes & { start: number },
  now: number,
  podStarts: PodStarts,
): Bar[] {
  const { start } = a;
  const done = t(a.completionTime);
  const end = done ?? Math.max(now, start);
  const ran = a.jobName === undefined ? undefined : podStarts.get(a.jobName);
  const phase = { ...bar, kind: kindOf(a.phase), end, open: done === undefined };
  if (ran === undefined || ran <= start || ran >= end) return [{ ...phase, start }];
  return [
    { ...bar, kind: 'Pending', start, end: ran, open: false },
    { ...phase, start: ran },
  ];
}

function stepBars(m: ModuleRecordView, now: number, withAttempt: boolean, podStarts: PodStarts): Bar[] {
  const bars: Bar[] = [];
  const all = attemptsOf(m);
  const label = (a: number) => `${m.step + 1} ${m.name}${withAttempt ? ` · attempt ${a}` : ''}`;
  all.forEach((a, i) => {
    const start = t(a.startTime);
    const prevEnd = i > 0 ? t(all[i - 1]!.completionTime) : undefined;
    const retryAt = i === all.length - 1 ? t((m as { retryAt?: string }).retryAt) : undefined;
    if (prevEnd !== undefined && (start !== undefined || retryAt !== undefined)) {
      const end = start ?? Math.max(now, prevEnd);
      bars.push({
        label: label(a.attempt),
        step: m.step,
        attempt: a.attempt,
        kind: 'backoff',
        start: prevEnd,
        end,
        open: start === undefined,
      });
    }
    if (start === undefined) return;
    bars.push(
      ...attemptBars({ label: label(a.attempt), step: m.step, attempt: a.attempt }, { ...a, start }, now, podStarts),
    );
  });
  return bars;
}

export function timeline(run: RunObject, now: number, podStarts: PodStarts): Timeline {
  const created = t(
    run.metadata.creationTimestamp === undefined
      ? undefined
      : String(new Date(run.metadata.creationTimestamp).toISOString()),
  );
  const records = (run.status?.modules ?? []).filter(wasReached);
  const multi = records.some((m) => (m.attempt ?? 1) > 1 || (m.attempts?.length ?? 0) > 0);
  const bars = records.flatMap((m) => stepBars(m, now, multi, podStarts));
  const firstStart = bars.length > 0 ? Math.min(...bars.map((b) => b.start)) : undefined;
  const ended = t(run.status?.completionTime);
  if (created !== undefined && (firstStart === undefined ? !ended : firstStart > created)) {
    const end = firstStart ?? now;
    bars.unshift({
      label: 'waiting to start',
      step: -1,
      attempt: 0,
      kind: 'queued',
      start: created,
      end,
      open: firstStart === undefined,
    });
  }
  const from = Math.min(...bars.map((b) => b.start), created ?? now);
  const to = Math.max(...bars.map((b) => b.end), ended ?? from, from + 1);
  return { bars, from, to };
}

/** Round tick steps for an axis `ms` long: about five ticks. */
export function tickStep(ms: number): number {
  const steps = [1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 216e5, 864e5];
  return steps.find((s) => ms / s <= 6) ?? steps.at(-1)!;
}
