// One run: its fields and actions, the timeline, its steps with their Jobs
// and logs, its conditions, Jobs and Events. Read again whenever the stream
// says the run changed.
import { isFinal, phaseOf, stepState, type RunObject } from '../../runs/run-object.ts';
import { runKey, type JobView, type RunDetail } from '../protocol.ts';
import { getJson } from './api.ts';
import { actionsPanel } from './actions-panel.ts';
import { h, link, replace } from './dom.ts';
import { durationText, formatTime } from './format.ts';
import { phaseCell } from './runs-view.ts';
import { detailTables, stepsTable } from './run-tables.ts';
import type { PageStore } from './store.ts';
import { timeline, type PodStarts } from './timeline.ts';
import { timelineSvg, timelineTable } from './timeline-svg.ts';

/** The run-end CloudEvent: sent (or none owed), owed, or not due while the run goes on. */
export function runEndState(run: RunObject): string {
  if (!isFinal(run)) return 'not due: the run has not ended';
  return (run.status as { notified?: boolean } | undefined)?.notified
    ? 'sent (or none owed: no K_SINK when the run ended)'
    : 'owed: not sent yet';
}

function stepText(run: RunObject): string {
  const { spec = {}, status = {} } = run;
  if (status.currentStep === undefined) return '';
  return `${status.currentStep + 1}/${spec.modules?.length ?? 0} ${status.currentModule ?? ''}`;
}

const createdIso = (run: RunObject) =>
  run.metadata.creationTimestamp ? new Date(run.metadata.creationTimestamp).toISOString() : undefined;

function fields(run: RunObject, now: number) {
  const { metadata, spec = {}, status = {} } = run;
  const ns = metadata.namespace ?? '';
  const step = stepText(run);
  const pairs: [string, Node | string][] = [
    ['Namespace', ns],
    ['Scenario', spec.scenarioname ? link(`/scenarios/${ns}/${spec.scenarioname}`, spec.scenarioname) : ''],
    ['iuid', spec.pid ?? ''],
    ['Phase', phaseCell(phaseOf(run))],
    ['Step', step],
    ['Created', formatTime(createdIso(run))],
    ['Started', formatTime(status.startTime)],
    ['Ended', formatTime(status.completionTime)],
    ['Duration', durationText(status.startTime, status.completionTime, now)],
    ['Input', spec.turlinfo ?? ''],
    ['Resumes', String(status.resumes ?? 0)],
    ['Run-end event', runEndState(run)],
  ];
  return h('dl', { class: 'fields' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

/** The pod starts the run's Jobs show, by Job name. */
const podStartsOf = (jobs: readonly JobView[]): PodStarts =>
  new Map(jobs.flatMap((j) => (j.podStarted ? [[j.name, Date.parse(j.podStarted)] as const] : [])));

function drawTimeline(slot: HTMLElement, run: RunObject, podStarts: PodStarts): void {
  const tl = timeline(run, Date.now(), podStarts);
  replace(
    slot,
    tl.bars.length ? timelineSvg(tl) : h('p', {}, 'No step has started yet.'),
    tl.bars.length ? timelineTable(tl) : null,
  );
}

export function runView(root: HTMLElement, store: PageStore, at: { namespace: string; name: string }): () => void {
  const key = runKey(at.namespace, at.name);
  const body = h('div');
  const timelineSlot = h('section', { 'aria-labelledby': 'tl-h' });
  let run: RunObject | undefined;
  let podStarts: PodStarts = new Map();
  let loading = false;
  let again = false;
  const actions = actionsPanel(at);
  replace(root, h('p', {}, link('/runs', '← Runs')), h('h1', {}, at.name), body);

  async function load(): Promise<void> {
    if (loading) return void (again = true);
    loading = true;
    try {
      const detail = await getJson<RunDetail>(`/api/runs/${at.namespace}/${at.name}`);
      run = detail.run as RunObject;
      draw(detail);
    } catch (error) {
      replace(body, h('p', { class: 'error', role: 'alert' }, String((error as Error).message)));
    } finally {
      loading = false;
      if (again) {
        again = false;
        void load();
      }
    }
  }

  function draw(detail: RunDetail): void {
    const r = detail.run as RunObject;
    const states = (r.status?.modules ?? []).map((m) => stepState(m));
    podStarts = podStartsOf(detail.jobs);
    drawTimeline(timelineSlot, r, podStarts);
    actions.update(r);
    replace(
      body,
      fields(r, Date.now()),
      actions.el,
      h('h2', { id: 'tl-h' }, 'Timeline'),
      timelineSlot,
      h('h2', {}, 'Steps'),
      stepsTable(r, states),
      ...detailTables(r, detail),
    );
  }

  void load();
  const stop = store.subscribe((changed) => {
    if (changed.has(key)) void load();
  });
  const tick = setInterval(() => {
    if (run && !isFinal(run)) drawTimeline(timelineSlot, run, podStarts);
  }, 1000);
  return () => (stop(), clearInterval(tick));
}
