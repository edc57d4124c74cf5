// The run page's tables: steps (with their logs on demand), conditions, Jobs, Events.
import type { RunObject } from '../../runs/run-object.ts';
import type { RunDetail, StepLogs } from '../protocol.ts';
import { getJson } from './api.ts';
import { h, replace } from './dom.ts';
import { durationText, formatTime } from './format.ts';
import { phaseCell } from './runs-view.ts';

export function table(caption: string, cols: string[], rows: (Node | string)[][]): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', { class: 'sr-only' }, caption),
    h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

async function showLogs(out: HTMLElement, run: RunObject, step: number): Promise<void> {
  const { namespace = '', name = '' } = run.metadata;
  replace(out, 'Reading the logs…');
  try {
    const logs = await getJson<StepLogs>(`/api/runs/${namespace}/${name}/logs?step=${step}`);
    if (logs.gone) return replace(out, h('p', {}, logs.gone));
    replace(
      out,
      ...logs.pods.flatMap((p) => [
        h('h4', {}, `pod ${p.name}`),
        p.error ? h('p', { class: 'error' }, `no logs: ${p.error}`) : h('pre', { tabindex: 0 }, p.log || '(empty)'),
      ]),
    );
  } catch (error) {
    replace(out, h('p', { class: 'error' }, String((error as Error).message)));
  }
}

export function stepsTable(run: RunObject, states: string[]): HTMLElement {
  const logs = h('div', { class: 'logs', 'aria-live': 'polite' });
  const now = Date.now();
  const rows = (run.status?.modules ?? []).map((m, i) => {
    const button = h('button', { type: 'button', 'aria-label': `Logs of step ${m.step + 1} ${m.name}` }, 'Logs');
    button.addEventListener('click', () => void showLogs(logs, run, m.step));
    const attempts = 1 + (m.attempts?.length ?? 0);
    return [
      String(m.step + 1),
      m.name,
      phaseCell(states[i] ?? m.phase),
      m.jobName,
      String(Math.max(attempts, m.attempt ?? 1)),
      formatTime(m.startTime),
      durationText(m.startTime, m.completionTime, now),
      m.result ?? '',
      [m.reason, m.message].filter(Boolean).join(': '),
      button,
    ];
  });
  const cols = ['Step', 'Module', 'Phase', 'Job', 'Attempts', 'Started', 'Duration', 'Result', 'Reason', 'Logs'];
  return h('div', {}, h('div', { class: 'scroll' }, table('Steps', cols, rows)), logs);
}

export function detailTables(run: RunObject, detail: RunDetail): HTMLElement[] {
  const conditions = (run.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']);
  const jobs = detail.jobs.map((j) => [
    j.name,
    j.step,
    j.attempt,
    `${j.active}/${j.succeeded}/${j.failed}`,
    formatTime(j.start),
    formatTime(j.completion),
  ]);
  const events = detail.events.map((e) => [formatTime(e.time), e.type, e.reason, e.object, e.message, String(e.count)]);
  return [
    h('h2', {}, 'Conditions'),
    h('div', { class: 'scroll' }, table('Conditions', ['Type', 'Status', 'Reason', 'Message'], conditions)),
    h('h2', {}, 'Jobs'),
    jobs.length
      ? h(
          'div',
          { class: 'scroll' },
          table('Jobs', ['Job', 'Step', 'Attempt', 'Active/succeeded/failed', 'Started', 'Completed'], jobs),
        )
      : h('p', {}, 'No Job of this run is left: Cascade deletes a run’s Jobs when it ends.'),
    h('h2', {}, 'Events'),
    events.length
      ? h('div', { class: 'scroll' }, table('Events', ['Time', 'Type', 'Reason', 'Object', 'Message', 'Count'], events))
      : h('p', {}, 'No Event.'),
    ...detail.errors.map((e) => h('p', { class: 'error', role: 'alert' }, e)),
  ];
}
