// A timeline drawn: one SVG row per bar on a shared time axis, each bar with
// its phase as a pattern and a title (hover), and the same facts as a table.
import { h, s } from './dom.ts';
import { formatElapsed, phaseIcon } from './format.ts';
import { tickStep, type Bar, type Timeline } from './timeline.ts';

const ROW = 26;
const LABEL = 190;
const WIDTH = 900;
const AXIS = 22;

const kindText = (b: Bar): string =>
  b.kind === 'queued'
    ? 'waiting to start'
    : b.kind === 'backoff'
      ? 'retry backoff'
      : b.kind === 'Pending'
        ? 'waiting for its pod'
        : b.kind;

const iso = (ms: number) => new Date(ms).toISOString();

function ticks(tl: Timeline, x: (ms: number) => number) {
  const step = tickStep(tl.to - tl.from);
  const out: SVGElement[] = [];
  for (let at = 0; at <= tl.to - tl.from; at += step) {
    out.push(
      s('line', {
        x1: x(tl.from + at),
        x2: x(tl.from + at),
        y1: AXIS - 4,
        y2: AXIS + tl.bars.length * ROW,
        class: 'tick',
      }),
      s(
        'text',
        { x: x(tl.from + at), y: AXIS - 8, class: 'tick-label', 'text-anchor': 'middle' },
        `+${formatElapsed(at)}`,
      ),
    );
  }
  return out;
}

function barRow(b: Bar, i: number, x: (ms: number) => number) {
  const y = AXIS + i * ROW;
  const text = `${b.label}: ${kindText(b)}, ${formatElapsed(b.end - b.start)}${b.open ? ' so far' : ''}`;
  return s(
    'g',
    {
      class: `bar bar-${b.kind}`,
      'data-step': b.step,
      'data-attempt': b.attempt,
      'data-kind': b.kind,
      'data-start': iso(b.start),
      'data-end': b.open ? '' : iso(b.end),
    },
    s('title', {}, text),
    s('text', { x: 4, y: y + ROW / 2 + 4, class: 'bar-label' }, b.label),
    s('rect', { x: x(b.start), y: y + 4, width: Math.max(2, x(b.end) - x(b.start)), height: ROW - 8, rx: 3 }),
    s(
      'text',
      { x: Math.min(x(b.end) + 4, WIDTH - 60), y: y + ROW / 2 + 4, class: 'bar-icon', 'aria-hidden': 'true' },
      phaseIcon(b.kind),
    ),
  );
}

export function timelineSvg(tl: Timeline): SVGSVGElement {
  const x = (ms: number) => LABEL + ((ms - tl.from) / (tl.to - tl.from)) * (WIDTH - LABEL - 70);
  const height = AXIS + tl.bars.length * ROW + 4;
  return s(
    'svg',
    {
      class: 'timeline',
      viewBox: `0 0 ${WIDTH} ${height}`,
      role: 'img',
      'aria-label': 'Timeline of the run: one bar per step and attempt; the table below gives the same times',
    },
    ...ticks(tl, x),
    ...tl.bars.map((b, i) => barRow(b, i, x)),
  );
}

export function timelineTable(tl: Timeline): HTMLTableElement {
  const rows = tl.bars.map((b) =>
    h(
      'tr',
      {},
      h('td', {}, b.label),
      h('td', {}, `${phaseIcon(b.kind)} ${kindText(b)}`),
      h('td', {}, `+${formatElapsed(b.start - tl.from)}`),
      h('td', {}, `${formatElapsed(b.end - b.start)}${b.open ? ' so far' : ''}`),
    ),
  );
  return h(
    'table',
    { class: 'timeline-text' },
    h('caption', {}, 'The timeline in text'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Step', 'State', 'From the start', 'Duration'].map((c) => h('th', { scope: 'col' }, c))),
    ),
    h('tbody', {}, ...rows),
  );
}
