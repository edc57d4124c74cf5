// A scenario (CascadeAutoOperator): its modules, counters, concurrency limit
// and queue, and two charts of its runs. Read again when the stream says the
// scenario or one of its runs changed (at most once a second).
import { runKey, type ScenarioDetail, type ScenarioSummary } from '../protocol.ts';
import { getJson } from './api.ts';
import { durationsChart, durationsTable, perHourChart, perHourLegend } from './charts.ts';
import { h, link, replace } from './dom.ts';
import type { PageStore } from './store.ts';

function facts(sc: ScenarioSummary): HTMLElement {
  const pairs: [string, string][] = [
    ['Namespace', sc.namespace],
    ['Concurrency limit', sc.maxConcurrentRuns === undefined ? 'none' : String(sc.maxConcurrentRuns)],
    ['Active', String(sc.active)],
    ['Queued', String(sc.queued)],
    ['Succeeded', String(sc.succeeded)],
    ['Failed', String(sc.failed)],
    ['Cancelled', String(sc.cancelled)],
  ];
  return h('dl', { class: 'fields' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

const runList = (sc: ScenarioSummary, names: string[], empty: string) =>
  names.length
    ? h('ol', {}, ...names.map((n) => h('li', {}, link(`/runs/${sc.namespace}/${n}`, n))))
    : h('p', {}, empty);

function draw(body: HTMLElement, d: ScenarioDetail): void {
  const sc = d.scenario;
  replace(
    body,
    facts(sc),
    h('h2', {}, 'Modules'),
    h('ol', { class: 'modules' }, ...sc.modules.map((m) => h('li', {}, m))),
    h('h2', {}, 'Queue'),
    runList(sc, sc.queue, 'No run waits for a slot.'),
    h('h2', {}, 'Holding a slot'),
    runList(sc, sc.holders, sc.maxConcurrentRuns === undefined ? 'No limit: no slot to hold.' : 'No run holds a slot.'),
    h('h2', {}, 'Runs ended per hour'),
    perHourChart(d.perHour),
    perHourLegend(d.perHour),
    h('h2', {}, 'Module durations'),
    durationsChart(d.modules),
    h('div', { class: 'scroll' }, durationsTable(d.modules)),
  );
}

export function scenarioView(root: HTMLElement, store: PageStore, at: { namespace: string; name: string }): () => void {
  const body = h('div');
  replace(root, h('p', {}, link('/scenarios', '← Scenarios')), h('h1', {}, at.name), body);
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const load = async () => {
    last = Date.now();
    try {
      draw(body, await getJson<ScenarioDetail>(`/api/scenarios/${at.namespace}/${at.name}`));
    } catch (error) {
      replace(body, h('p', { class: 'error', role: 'alert' }, String((error as Error).message)));
    }
  };
  const key = runKey(at.namespace, at.name);
  const mine = (k: string) => k.startsWith(`${at.namespace}/`) && store.runs.get(k)?.scenario === at.name;
  let seen = store.scenarios.get(key)?.resourceVersion;
  const stop = store.subscribe((changed) => {
    const rv = store.scenarios.get(key)?.resourceVersion;
    if (timer || (rv === seen && ![...changed].some(mine))) return;
    seen = rv;
    timer = setTimeout(() => ((timer = undefined), void load()), Math.max(0, 1000 - (Date.now() - last)));
  });
  void load();
  return () => (stop(), clearTimeout(timer));
}

export function scenariosView(root: HTMLElement, store: PageStore): () => void {
  const list = h('div');
  const drawList = () => {
    const all = [...store.scenarios.values()].sort((a, b) => a.key.localeCompare(b.key));
    const rows = all.map((sc) =>
      h(
        'tr',
        {},
        h('td', {}, link(`/scenarios/${sc.namespace}/${sc.name}`, sc.name)),
        h('td', {}, sc.namespace),
        h('td', {}, String(sc.modules.length)),
        h('td', {}, String(sc.active)),
        h('td', {}, String(sc.queued)),
        h('td', {}, String(sc.succeeded)),
        h('td', {}, String(sc.failed)),
        h('td', {}, String(sc.cancelled)),
      ),
    );
    const cols = ['Scenario', 'Namespace', 'Modules', 'Active', 'Queued', 'Succeeded', 'Failed', 'Cancelled'];
    replace(
      list,
      all.length || !store.loaded
        ? h(
            'div',
            { class: 'scroll' },
            h(
              'table',
              {},
              h('caption', { class: 'sr-only' }, 'Scenarios'),
              h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
              h('tbody', {}, ...rows),
            ),
          )
        : h('p', {}, 'No scenario here.'),
    );
  };
  replace(root, h('h1', {}, 'Scenarios'), list);
  drawList();
  return store.subscribe(drawList);
}
