// The runs: every run of the namespace (or all), newest first, filtered by
// phase, scenario and iuid text, 100 to a page; live from the store.
import type { RunSummary } from '../protocol.ts';
import { h, link, replace } from './dom.ts';
import { durationText, formatTime, phaseIcon } from './format.ts';
import { newestFirst, type PageStore } from './store.ts';

export const PAGE_SIZE = 100;
const PHASES = ['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'];

export interface RunFilter {
  phase: string;
  scenario: string;
  iuid: string;
}

export function selectRuns(runs: Iterable<RunSummary>, f: RunFilter): RunSummary[] {
  const text = f.iuid.trim().toLowerCase();
  const out: RunSummary[] = [];
  for (const r of runs) {
    if (f.phase && r.phase !== f.phase) continue;
    if (f.scenario && r.scenario !== f.scenario) continue;
    if (text && !r.iuid.toLowerCase().includes(text) && !r.name.includes(text)) continue;
    out.push(r);
  }
  return out.sort(newestFirst);
}

export const phaseCell = (phase: string) =>
  h(
    'span',
    { class: `phase phase-${phase}` },
    h('span', { class: 'icon', 'aria-hidden': 'true' }, phaseIcon(phase)),
    ` ${phase}`,
  );

function stepCell(r: RunSummary) {
  return h(
    'span',
    { class: 'step' },
    h('progress', { value: r.step, max: Math.max(r.steps, 1), 'aria-label': `step ${r.step} of ${r.steps}` }),
    ` ${r.step}/${r.steps}`,
  );
}

function row(r: RunSummary, all: boolean, now: number) {
  return h(
    'tr',
    { 'data-run': r.key, 'data-phase': r.phase },
    h('td', {}, link(`/runs/${r.namespace}/${r.name}`, r.name)),
    all && h('td', {}, r.namespace),
    h('td', {}, phaseCell(r.phase)),
    h('td', {}, r.scenario ? link(`/scenarios/${r.namespace}/${r.scenario}`, r.scenario) : ''),
    h('td', { class: 'iuid' }, r.iuid),
    h('td', {}, stepCell(r)),
    h('td', {}, formatTime(r.start ?? r.created)),
    h('td', {}, durationText(r.start, r.completion, now)),
  );
}

function select(label: string, value: string, options: string[], onChange: (v: string) => void) {
  const el = h('select', { 'aria-label': label }, h('option', { value: '' }, `every ${label}`));
  for (const o of options) el.append(h('option', { value: o, selected: o === value }, o));
  el.addEventListener('change', () => onChange(el.value));
  return h('label', {}, `${label[0]!.toUpperCase()}${label.slice(1)} `, el);
}

/** Newer and Older, and where the list is: made once, so that a redraw keeps the focus. */
function pagerOf(turn: (by: number) => void) {
  const prev = h('button', { type: 'button' }, 'Newer');
  const next = h('button', { type: 'button' }, 'Older');
  const where = h('span');
  prev.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  return { prev, next, where, pager: h('nav', { class: 'pager', 'aria-label': 'Pages of runs' }, prev, where, next) };
}

export function runsView(root: HTMLElement, store: PageStore): () => void {
  const filter: RunFilter = { phase: '', scenario: '', iuid: '' };
  let page = 0;
  let shownScenarios: string | undefined;
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const body = h('tbody');
  const scenarioSlot = h('span');
  const iuid = h('input', { type: 'search', 'aria-label': 'iuid or name contains', placeholder: 'iuid or name' });
  const refilter = (set: () => void) => () => (set(), (page = 0), draw());
  iuid.addEventListener(
    'input',
    refilter(() => (filter.iuid = iuid.value)),
  );
  const phase = select('phase', '', PHASES, (v) => refilter(() => (filter.phase = v))());
  const head = h('thead');
  const table = h('table', { class: 'runs' }, h('caption', { class: 'sr-only' }, 'Runs, newest first'), head, body);
  const { prev, next, where, pager } = pagerOf((by) => ((page += by), draw()));

  function drawScenarios(): void {
    const scenarios = [...new Set([...store.runs.values()].map((r) => r.scenario))].sort();
    if (scenarios.join('\n') === shownScenarios) return;
    shownScenarios = scenarios.join('\n');
    replace(
      scenarioSlot,
      select('scenario', filter.scenario, scenarios, (v) => refilter(() => (filter.scenario = v))()),
    );
  }

  function draw(): void {
    const all = store.scope.allNamespaces;
    const cols = ['Name', all && 'Namespace', 'Phase', 'Scenario', 'iuid', 'Step', 'Started', 'Duration'];
    replace(head, h('tr', {}, ...cols.filter(Boolean).map((c) => h('th', { scope: 'col' }, c as string))));
    drawScenarios();
    const runs = selectRuns(store.runs.values(), filter);
    const pages = Math.max(1, Math.ceil(runs.length / PAGE_SIZE));
    page = Math.min(page, pages - 1);
    const now = Date.now();
    replace(body, ...runs.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((r) => row(r, all, now)));
    const state = store.loaded ? `${runs.length} of ${store.runs.size} runs` : 'Loading runs…';
    const errors = store.errors.map((e) => h('span', { class: 'error' }, ` ${e}`));
    replace(status, state, store.connected ? '' : ' (reconnecting)', ...errors);
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    where.textContent = ` page ${page + 1} of ${pages} `;
  }

  const filters = h('div', { class: 'filters' }, phase, scenarioSlot, h('label', {}, 'iuid ', iuid));
  replace(root, h('h1', {}, 'Runs'), filters, status, h('div', { class: 'scroll' }, table), pager);
  draw();
  const stop = store.subscribe(() => draw());
  const tick = setInterval(draw, 1000);
  return () => (stop(), clearInterval(tick));
}
