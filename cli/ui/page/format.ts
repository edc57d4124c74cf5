// How times, durations and phases read on the page. Pure.
import { formatElapsed } from '../../format/duration.ts';

export { formatElapsed };

/** An icon per phase, beside its name: the phase never shows by colour alone. */
const ICONS: Record<string, string> = {
  Queued: '⏸',
  Pending: '…',
  Waiting: '·',
  Running: '▶',
  Succeeded: '✓',
  Failed: '✗',
  Cancelled: '■',
  backoff: '↻',
  queued: '⏸',
};

export const phaseIcon = (phase: string): string => ICONS[phase] ?? '?';

/** `2026-01-02 13:04:05` in the browser's time zone; '' when unknown. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** From `start` to `end` (or to `now` while open); '' before it starts. */
export function durationText(start: string | undefined, end: string | undefined, now: number): string {
  if (!start) return '';
  return formatElapsed((end ? Date.parse(end) : now) - Date.parse(start));
}
