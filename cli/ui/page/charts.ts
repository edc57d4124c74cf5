// The scenario page's two small charts, in SVG: runs ended per hour by
// outcome (stacked bars), and each module's durations (a range bar from the
// fastest to the slowest, the median marked). Each has a text table too.
import type { HourCount, ModuleDurations } from '../protocol.ts';
import { h, s } from './dom.ts';
import { formatElapsed } from './format.ts';

const OUTCOMES = ['Succeeded', 'Failed', 'Cancelled'] as const;

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function perHourChart(hours: HourCount[]): SVGSVGElement {
  const W = 480;
  const H = 140;
  const max = Math.max(1, ...hours.map((x) => x.Succeeded + x.Failed + x.Cancelled));
  const bw = W / hours.length;
  const bars = hours.flatMap((x, i) => {
    let y = H - 16;
    return OUTCOMES.map((o) => {
      const hgt = ((H - 24) * x[o]) / max;
      y -= hgt;
      return s(
        'rect',
        { x: i * bw + 1, y, width: bw - 2, height: hgt, class: `chart-${o}` },
        s('title', {}, `${x.hour.slice(11, 16)}: ${x[o]} ${o}`),
      );
    });
  });
  return s(
    'svg',
    {
      viewBox: `0 0 ${W} ${H}`,
      class: 'chart',
      role: 'img',
      'aria-label': `Runs ended per hour over the last ${hours.length} hours, by outcome; at most ${max} in an hour`,
    },
    ...bars,
    s('text', { x: 0, y: H - 2, class: 'tick-label' }, `${hours[0]?.hour.slice(11, 16) ?? ''}`),
    s('text', { x: W, y: H - 2, class: 'tick-label', 'text-anchor': 'end' }, 'now'),
  );
}

export function perHourLegend(hours: HourCount[]): HTMLElement {
  const totals = OUTCOMES.map((o) => `${hours.reduce((n, x) => n + x[o], 0)} ${o}`);
  return h(
    'p',
    { class: 'legend' },
    ...OUTCOMES.map((o) => h('span', { class: `key chart-${o}` }, '')),
    ` Last 24 hours: ${totals.join(', ')}`,
  );
}

export function durationsChart(modules: ModuleDurations[]): SVGSVGElement {
  const W = 480;
  const ROW = 26;
  const LABEL = 130;
  const max = Math.max(1, ...modules.map((m) => m.durations.at(-1) ?? 0));
  const x = (ms: number) => LABEL + ((W - LABEL - 10) * ms) / max;
  const rows = modules.map((m, i) => {
    const y = i * ROW + 6;
    const d = m.durations;
    if (d.length === 0) return s('text', { x: 0, y: y + 14, class: 'bar-label' }, `${m.module}: no run yet`);
    const med = quantile(d, 0.5);
    return s(
      'g',
      {},
      s(
        'title',
        {},
        `${m.module}: ${d.length} runs, fastest ${formatElapsed(d[0]!)}, median ${formatElapsed(med)}, slowest ${formatElapsed(d.at(-1)!)}`,
      ),
      s('text', { x: 0, y: y + 14, class: 'bar-label' }, m.module),
      s('rect', { x: x(d[0]!), y: y + 4, width: Math.max(2, x(d.at(-1)!) - x(d[0]!)), height: 12, class: 'range' }),
      s('rect', { x: x(med) - 1.5, y, width: 3, height: 20, class: 'median' }),
    );
  });
  return s(
    'svg',
    {
      viewBox: `0 0 ${W} ${modules.length * ROW + 8}`,
      class: 'chart',
      role: 'img',
      'aria-label': "Each module's durations: the table below gives them",
    },
    ...rows,
  );
}

export function durationsTable(modules: ModuleDurations[]): HTMLTableElement {
  const rows = modules.map((m) => {
    const d = m.durations;
    const cell = (v: number | undefined) => h('td', {}, v === undefined ? '' : formatElapsed(v));
    return h(
      'tr',
      {},
      h('td', {}, m.module),
      h('td', {}, String(d.length)),
      cell(d[0]),
      cell(d.length ? quantile(d, 0.5) : undefined),
      cell(d.length ? quantile(d, 0.9) : undefined),
      cell(d.at(-1)),
    );
  });
  return h(
    'table',
    {},
    h('caption', { class: 'sr-only' }, 'Module durations'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Module', 'Runs', 'Fastest', 'Median', '90th percentile', 'Slowest'].map((c) =>
          h('th', { scope: 'col' }, c),
        ),
      ),
    ),
    h('tbody', {}, ...rows),
  );
}
