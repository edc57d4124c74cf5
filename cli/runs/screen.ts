// What `watch` shows: on a terminal, a screen of one line per module redrawn
// in place; elsewhere, one plain line each time a module or the run changes
// state. Pure: the caller writes the lines and keeps the last state shown.
import { formatElapsed, span } from '../format/duration.ts';
import type { Palette } from '../format/colour.ts';
import { phaseOf, stepState, wasReached, type RunObject } from './run-object.ts';
import { moduleSlots } from './view.ts';

const MARK: Record<string, string> = {
  Succeeded: '✓',
  Failed: '✗',
  Cancelled: '⊘',
  Running: '▶',
  Pending: '…',
  Retrying: '↻',
  Waiting: '·',
};

function elapsedText(start: string | undefined, end: string | undefined, now: number): string {
  const ms = span(start, end, now);
  return ms === undefined ? '' : formatElapsed(ms);
}

/** The screen: the run's line, then one line per module with its state and elapsed time. */
export function screenLines(run: RunObject, now: number, p: Palette): string[] {
  const slots = moduleSlots(run);
  const width = Math.max(0, ...slots.map((s) => s.name.length));
  const phase = phaseOf(run);
  const runElapsed = elapsedText(run.status?.startTime, run.status?.completionTime, now);
  const head = [p.bold(run.metadata.name ?? ''), p.phase(phase), ...(runElapsed ? [runElapsed] : [])].join('  ');
  const lines = slots.map(({ name, record }) => {
    const state = stepState(record);
    const elapsed = elapsedText(record?.startTime, record?.completionTime, now);
    const extra = [record?.result, record?.reason].filter(Boolean).join('  ');
    // no trailing blanks, even inside a colour: a terminal keeps them
    const more = elapsed !== '' || extra !== '';
    const parts = [
      `  ${p.phase(state, MARK[state] ?? '?')} ${name.padEnd(width)}`,
      p.phase(state, more ? state.padEnd(9) : state),
    ];
    if (more) parts.push(elapsed.padStart(7));
    if (extra) parts.push(p.dim(extra));
    return parts.join('  ');
  });
  return [head, ...lines];
}

/** The states last shown, by key (`run` and each module's name). */
export type Shown = Map<string, string>;

/** Plain lines for what changed since `shown` (which is updated): `grayscale Running`, `run X Succeeded in 3.2s`. */
export function changeLines(run: RunObject, shown: Shown, now: number): string[] {
  const out: string[] = [];
  for (const { name, record } of moduleSlots(run)) {
    if (!record || !wasReached(record) || shown.get(`module:${name}`) === record.phase) continue;
    shown.set(`module:${name}`, record.phase);
    const took = record.completionTime ? ` in ${elapsedText(record.startTime, record.completionTime, now)}` : '';
    const extra = [record.result, record.reason]
      .filter(Boolean)
      .map((s) => ` (${s})`)
      .join('');
    out.push(`${name} ${record.phase}${took}${extra}`);
  }
  const phase = phaseOf(run);
  if (shown.get('run') !== phase) {
    shown.set('run', phase);
    const took = run.status?.completionTime
      ? ` in ${elapsedText(run.status.startTime, run.status.completionTime, now)}`
      : '';
    out.push(`run ${run.metadata.name ?? ''} ${phase}${took}`);
  }
  return out;
}

/** Moves the cursor up over the `previous` lines drawn and clears them, so that the next screen replaces them. */
export function redrawPrefix(previous: number): string {
  return previous > 0 ? `\x1b[${previous}A\r\x1b[J` : '';
}
