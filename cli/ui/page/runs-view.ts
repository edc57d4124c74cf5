// The runs: every run of the namespace (or all), newest first, filtered by
// phase, scenario and iuid text, 100 to a page; live from the store.
import { FIRST_SCREEN, newestFirst, type RunSummary } from '../protocol.ts';
import { h, link, replace } from './dom.ts';
import { durationText, formatTime, phaseIcon } from './format.ts';
import type { PageStore } from './store.ts';

export const PAGE_SIZE = FIRST_SCREEN;
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

/**
 * The rows of a view, kept by run summary: a run that has not changed and
 * whose duration no longer grows keeps its row. A redraw that shows the same
 * rows leaves the table as it is, so a burst of changes elsewhere and the
 * clock's tick build no rows.
 */
function rowKeeper() {
  const kept = new WeakMap<RunSummary, { tr: HTMLTableRowElement; all: boolean }>();
  const rowOf = (r: RunSummary, all: boolean, now: number) => {
    const fixed = r.completion !== undefined || r.start === undefined;
    const had = fixed ? kept.get(r) : undefined;
    if (had && had.all === all) return had.tr;
    const tr = row(r, all, now);
    if (fixed) kept.set(r, { tr, all });
    return tr;
  };
  return (body: HTMLElement, runs: RunSummary[], all: boolean, now: number) => {
    const trs = runs.map((r) => rowOf(r, all, now));
    const same = trs.length === body.children.length && trs.every((tr, i) => body.children[i] === tr);
    if (!same) body.replaceChildren(...trs);
  };
}

function select(label: string, value: string, options: string[], onChange: (v: string) => void) {
  const el = h('select', { 'aria-label': label }, h('option', { value: '' }, `every ${label}`));
  for (const o of options) el.append(h('option', { value: o, selected: o === value }, o));
  el.addEventListener('change', () => onChange(el.value));
  return h('label', {}, `${label[0]!.toUpperCase()}${label.slice(1)} `, el);
}

/**
 * What the status line says. Until the snapshot's rest is in, the store holds
 * the first screen only: the count of all is known, a filtered count is not.
 */
function countText(store: PageStore, selected: number, filtered: boolean): string {
  if (!store.loaded) return 'Loading runs…';
  if (store.complete) return `${selected} of ${store.runs.size} runs`;
  return filtered
    ? `Loading runs… ${store.runs.size} of ${store.total} so far`
    : `${store.total} of ${store.total} runs`;
}

/**
 * `selectRuns` of the store, kept until the runs or the filter change: the
 * clock's redraw each second and a page turn sort nothing.
 */
function selection(store: PageStore, filter: RunFilter): () => RunSummary[] {
  let at = '';
  let runs: RunSummary[] = [];
  return () => {
    const now = `${store.version} ${filter.phase} ${filter.scenario} ${filter.iuid}`;
    if (now === at) return runs;
    at = now;
    runs = selectRuns(store.runs.values(), filter);
    return runs;
  };
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
  let scenariosAt = -1;
  const selected = selection(store, filter);
  const drawRows = rowKeeper();
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
    if (scenariosAt === store.version) return;
    scenariosAt = store.version;
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
    const runs = selected();
    const filtered = Boolean(filter.phase || filter.scenario || filter.iuid.trim());
    const count = store.complete || filtered ? runs.length : store.total;
    const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    page = Math.min(page, pages - 1);
    const now = Date.now();
    drawRows(body, runs.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), all, now);
    const state = countText(store, runs.length, filtered);
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
