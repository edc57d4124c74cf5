import { describe, expect, it, vi } from 'vitest';
import type { RunObject } from '../../runs/run-object.ts';
import type { RunSummary } from '../protocol.ts';
import { quantile } from './charts.ts';
import { viewOf } from './router.ts';
import { selectRuns } from './runs-view.ts';
import { PageStore } from './store.ts';
import { tickStep, timeline } from './timeline.ts';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

describe('timeline', () => {
  it('one bar per attempt from its recorded times, a backoff between attempts, the wait before the first step', () => {
    const run: RunObject = {
      metadata: { name: 'r', creationTimestamp: at(0) },
      spec: { modules: ['a', 'b', 'c'] },
      status: {
        phase: 'Running',
        modules: [
          { step: 0, name: 'a', jobName: 'r-a', phase: 'Succeeded', startTime: at(2), completionTime: at(5) },
          {
            step: 1,
            name: 'b',
            jobName: 'r-b-a2',
            phase: 'Running',
            startTime: at(9),
            attempt: 2,
            attempts: [{ attempt: 1, jobName: 'r-b', phase: 'Failed', startTime: at(5), completionTime: at(7) }],
          },
          { step: 2, name: 'c', jobName: 'r-c', phase: 'Pending' },
        ],
      },
    };
    const tl = timeline(run, T0 + 12_000, new Map());
    expect(tl.bars.map((b) => [b.label, b.kind, (b.start - T0) / 1000, (b.end - T0) / 1000, b.open])).toEqual([
      ['waiting to start', 'queued', 0, 2, false],
      ['1 a · attempt 1', 'Succeeded', 2, 5, false],
      ['2 b · attempt 1', 'Failed', 5, 7, false],
      ['2 b · attempt 2', 'backoff', 7, 9, false],
      ['2 b · attempt 2', 'Running', 9, 12, true],
    ]);
    expect([tl.from, tl.to]).toEqual([T0, T0 + 12_000]);
  });

  it('a retry still in its backoff is an open backoff bar; a queued run is one open wait', () => {
    const waiting: RunObject = {
      metadata: { name: 'r', creationTimestamp: at(0) },
      status: {
        phase: 'Running',
        modules: [
          {
            step: 0,
            name: 'a',
            jobName: 'r-a-a2',
            phase: 'Pending',
            attempt: 2,
            attempts: [{ attempt: 1, jobName: 'r-a', phase: 'Failed', startTime: at(1), completionTime: at(3) }],
            retryAt: at(8),
          } as never,
        ],
      },
    };
    const bars = timeline(waiting, T0 + 5000, new Map()).bars;
    expect(bars.at(-1)).toMatchObject({ kind: 'backoff', start: T0 + 3000, end: T0 + 5000, open: true });
    const queued = timeline(
      { metadata: { creationTimestamp: at(0) }, status: { phase: 'Queued' } },
      T0 + 4000,
      new Map(),
    );
    expect(queued.bars).toEqual([
      { label: 'waiting to start', step: -1, attempt: 0, kind: 'queued', start: T0, end: T0 + 4000, open: true },
    ]);
  });

  it("splits an attempt whose pod's start is known: waiting for its pod, then its phase; a pod start outside the attempt splits nothing", () => {
    const run: RunObject = {
      metadata: { name: 'r', creationTimestamp: at(0) },
      status: {
        phase: 'Running',
        modules: [
          {
            step: 0,
            name: 'a',
            jobName: 'r-a-a2',
            phase: 'Running',
            startTime: at(6),
            attempt: 2,
            attempts: [{ attempt: 1, jobName: 'r-a', phase: 'Failed', startTime: at(0), completionTime: at(4) }],
          },
        ],
      },
    };
    const pods = new Map([
      ['r-a', T0 + 1500],
      ['r-a-a2', T0 + 8000],
    ]);
    const bars = timeline(run, T0 + 10_000, pods).bars.map((b) => [
      b.kind,
      (b.start - T0) / 1000,
      (b.end - T0) / 1000,
      b.open,
    ]);
    expect(bars).toEqual([
      ['Pending', 0, 1.5, false],
      ['Failed', 1.5, 4, false],
      ['backoff', 4, 6, false],
      ['Pending', 6, 8, false],
      ['Running', 8, 10, true],
    ]);
    const late = timeline(run, T0 + 10_000, new Map([['r-a', T0 + 5000]])).bars.map((b) => b.kind);
    expect(late).toEqual(['Failed', 'backoff', 'Running']);
  });

  it('ticks about five to an axis', () => {
    expect(tickStep(10_000)).toBe(2000);
    expect(tickStep(3_600_000)).toBe(600_000);
  });
});

describe('viewOf', () => {
  it.each([
    ['/', { kind: 'runs' }],
    ['/runs', { kind: 'runs' }],
    ['/scenarios/', { kind: 'scenarios' }],
    ['/runs/ns/r-1', { kind: 'run', namespace: 'ns', name: 'r-1' }],
    ['/scenarios/ns/s', { kind: 'scenario', namespace: 'ns', name: 's' }],
    ['/runs/ns', { kind: 'missing' }],
    ['/other', { kind: 'missing' }],
  ])('%s', (path, view) => {
    expect(viewOf(path)).toEqual(view);
  });
});

describe('selectRuns', () => {
  const r = (name: string, phase: string, created: string, scenario = 's'): RunSummary => ({
    key: `ns/${name}`,
    namespace: 'ns',
    name,
    scenario,
    iuid: `iuid-${name}`,
    phase,
    step: 0,
    steps: 3,
    module: '',
    reason: '',
    created,
    resourceVersion: '1',
  });
  const runs = [r('a', 'Running', at(1)), r('b', 'Failed', at(3)), r('c', 'Running', at(2), 'other')];
  it('newest first, filtered by phase, scenario and iuid text', () => {
    expect(selectRuns(runs, { phase: '', scenario: '', iuid: '' }).map((x) => x.name)).toEqual(['b', 'c', 'a']);
    expect(selectRuns(runs, { phase: 'Running', scenario: '', iuid: '' }).map((x) => x.name)).toEqual(['c', 'a']);
    expect(selectRuns(runs, { phase: 'Running', scenario: 's', iuid: '' }).map((x) => x.name)).toEqual(['a']);
    expect(selectRuns(runs, { phase: '', scenario: '', iuid: 'IUID-B' }).map((x) => x.name)).toEqual(['b']);
  });
});

describe('PageStore', () => {
  const r = (name: string, phase: string): RunSummary => ({
    key: `ns/${name}`,
    namespace: 'ns',
    name,
    scenario: 's',
    iuid: '',
    phase,
    step: 0,
    steps: 3,
    module: '',
    reason: '',
    created: at(0),
    resourceVersion: '1',
  });
  it("holds changes that come before the snapshot's rest, and applies them after it, in order", () => {
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (fn: FrameRequestCallback) => frames.push(fn));
    const frame = () => frames.splice(0).forEach((fn) => fn(0));
    const store = new PageStore();
    const drawn: string[][] = [];
    store.subscribe((changed) => drawn.push([...changed]));
    const scope = { allNamespaces: false };
    store.snapshot({ scope, runs: [r('c', 'Running')], total: 3, scenarios: [], errors: [] });
    expect([store.complete, store.total, store.runs.size]).toEqual([false, 3, 1]);
    const none = { scenarios: [], deletedScenarios: [], errors: [] };
    store.apply({ ...none, runs: [r('a', 'Running')], deletedRuns: [] });
    store.apply({ ...none, runs: [], deletedRuns: ['ns/b'] });
    expect(store.runs.get('ns/a')).toBeUndefined();
    frame();
    store.rest({ runs: [r('a', 'Queued'), r('b', 'Queued')] });
    frame();
    expect(store.complete).toBe(true);
    expect([...store.runs.values()].map((x) => [x.name, x.phase])).toEqual([
      ['c', 'Running'],
      ['a', 'Running'],
    ]);
    // One redraw for the first screen, one for the rest and the changes held.
    expect(drawn).toEqual([['ns/c'], ['ns/a', 'ns/b']]);
    vi.unstubAllGlobals();
  });
});

describe('quantile', () => {
  it('reads a sorted list', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4], 0.9)).toBe(4);
    expect(quantile([], 0.5)).toBe(0);
  });
});
