import type { V1Job } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun, CascadeRunStatus } from '../../api/cascade-run.ts';
import { FINALIZER } from '../../api/group.ts';
import { decide } from '../../core/decide.ts';
import { input, job as observed, NOW as CORE_NOW, run as runFixture, SETTINGS } from '../../core/testing/fixtures.ts';
import {
  countNeedingOperator,
  emptyJobIndex,
  finalizerPlan,
  indexJobs,
  isActiveRun,
  isExpired,
  type JobIndex,
  jobOutlivedCancel,
  jobsOfRun,
  movesOnLook,
  needsReconcile,
  orphanJobs,
} from './sweep-plan.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT } from '../../names.ts';

const NOW = new Date('2026-11-29T12:00:00Z');
const DELETED = '2026-11-29T11:59:00Z';

function run(name: string, status?: CascadeRunStatus, deleting = false): CascadeRun {
  const r = runFixture(['a', 'b'], status);
  return {
    ...r,
    metadata: {
      ...r.metadata,
      name,
      creationTimestamp: '2026-11-29T10:00:00Z',
      ...(deleting ? { deletionTimestamp: DELETED } : {}),
    },
  };
}

function job(name: string, runName: string | undefined, deleting = false, step = 0): V1Job {
  return {
    metadata: {
      name,
      labels: runName ? { 'cascade.cascade.net/run': runName, 'cascade.cascade.net/step': String(step) } : {},
      ...(deleting ? { deletionTimestamp: new Date(DELETED) } : {}),
    },
  };
}

function index(...pages: V1Job[][]): JobIndex {
  const i = emptyJobIndex();
  for (const page of pages) indexJobs(i, page);
  return i;
}

function operator(finalizers: string[], deleting: boolean): CascadeAutoOperator {
  return {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeAutoOperator',
    metadata: { name: 'cao', namespace: 'ns', finalizers, ...(deleting ? { deletionTimestamp: DELETED } : {}) },
    spec: { scenarioconfig: { cascademodules: [] } },
  };
}

const ended = (
  phase: 'Succeeded' | 'Failed',
  completionTime: string | undefined,
  notified: boolean,
): CascadeRunStatus => ({ phase, notified, ...(completionTime ? { completionTime } : {}) });

/** Ended and notified: failed at `step` of the two, or succeeded (step 2). */
const failedAt = (step: number): CascadeRunStatus => ({
  ...ended(step < 2 ? 'Failed' : 'Succeeded', DELETED, true),
  modules: ['a', 'b'].map((name, i) => ({
    step: i,
    name,
    jobName: `j${i}`,
    phase: i < step ? 'Succeeded' : i === step ? 'Failed' : 'Pending',
  })),
});

describe('which runs a sweep reconciles', () => {
  it.each([
    ['a run never looked at', undefined, false, true],
    ['a running run', { phase: 'Running' } as CascadeRunStatus, false, true],
    ['an ended run not yet notified', ended('Failed', DELETED, false), false, true],
    ['an ended, notified run', ended('Succeeded', DELETED, true), false, false],
    [
      'an ended run whose slot is released, its run-end event owed',
      { ...ended('Succeeded', DELETED, false), slotReleased: true },
      false,
      true,
    ],
    ['a running run being deleted', { phase: 'Running' } as CascadeRunStatus, true, false],
  ])('%s', (_n, status, deleting, expected) => {
    expect(needsReconcile(run('r', status, deleting))).toBe(expected);
  });

  const annotated = (r: CascadeRun, value: string): CascadeRun => ({
    ...r,
    metadata: { ...r.metadata, annotations: { [ANNOTATION_CANCEL_REQUESTED_AT]: value } },
  });

  it.each([
    [
      'an ended, notified run asked to cancel (its event missed)',
      annotated(run('r', ended('Succeeded', DELETED, true)), 't1'),
      [],
      true,
    ],
    [
      'an ended, notified run whose cancel request is handled',
      annotated(run('r', { ...ended('Succeeded', DELETED, true), lastHandledCancel: 't1' }), 't1'),
      [],
      false,
    ],
    [
      'a cancelled run that a Job outlived',
      run('r', { ...ended('Succeeded', DELETED, true), phase: 'Cancelled' }),
      [job('j', 'r')],
      true,
    ],
    [
      'a cancelled run whose Job is being deleted',
      run('r', { ...ended('Succeeded', DELETED, true), phase: 'Cancelled' }),
      [job('j', 'r', true)],
      false,
    ],
    ['a failed run that keeps its failed Job', run('r', failedAt(1)), [job('j1', 'r', false, 1)], false],
    ['a failed run that a Job of a succeeded step outlived', run('r', failedAt(1)), [job('j0', 'r', false, 0)], true],
    ['a succeeded run that a Job outlived', run('r', failedAt(2)), [job('j1', 'r', false, 1)], true],
  ] as Array<[string, CascadeRun, V1Job[], boolean]>)('%s', (_n, r, jobs, expected) => {
    const index = emptyJobIndex();
    indexJobs(index, jobs);
    expect(
      jobOutlivedCancel(r, index) || movesOnLook(r, index.byRun.get(r.metadata.name) ?? [], CORE_NOW, SETTINGS),
    ).toBe(expected);
  });

  it.each([
    ['pending', { phase: 'Pending' } as CascadeRunStatus, false, true],
    ['running', { phase: 'Running' } as CascadeRunStatus, false, true],
    ['ended, not notified', ended('Failed', DELETED, false), false, false],
    ['running but being deleted', { phase: 'Running' } as CascadeRunStatus, true, false],
  ])('a %s run is active: %s', (_n, status, deleting, expected) => {
    expect(isActiveRun(run('r', status, deleting))).toBe(expected);
  });
});

describe('retention', () => {
  it.each([
    ['retention 0 keeps forever', ended('Succeeded', '2020-01-01T00:00:00Z', true), 0, false],
    ['ended long ago', ended('Succeeded', '2026-11-29T10:59:59Z', true), 3600, true],
    ['failed long ago', ended('Failed', '2026-11-29T10:00:00Z', true), 3600, true],
    ['ended exactly at the limit', ended('Succeeded', '2026-11-29T11:00:00Z', true), 3600, false],
    ['ended recently', ended('Succeeded', '2026-11-29T11:30:00Z', true), 3600, false],
    ['ended long ago but not notified', ended('Succeeded', '2026-11-29T10:00:00Z', false), 3600, false],
    ['no completionTime: aged from creation', ended('Failed', undefined, true), 3600, true],
    ['still running', { phase: 'Running', completionTime: '2026-11-29T10:00:00Z' } as CascadeRunStatus, 3600, false],
  ])('%s', (_n, status, retention, expected) => {
    expect(isExpired(run('r', status), NOW, retention)).toBe(expected);
  });

  it('leaves a run already being deleted', () => {
    expect(isExpired(run('r', ended('Succeeded', '2020-01-01T00:00:00Z', true), true), NOW, 60)).toBe(false);
  });
});

describe('the index of listed Jobs', () => {
  it("keeps, page after page, what the core sees of each run's Jobs", () => {
    const i = index([job('a-0', 'a'), job('b-0', 'b')], [job('a-1', 'a', false, 1), job('other', undefined)]);
    expect([...i.byRun.keys()]).toEqual(['a', 'b']);
    expect(i.byRun.get('a')?.map((j) => [j.name, j.step, j.state])).toEqual([
      ['a-0', 0, 'Active'],
      ['a-1', 1, 'Active'],
    ]);
    expect(i.named).toEqual([
      { name: 'a-0', run: 'a' },
      { name: 'b-0', run: 'b' },
      { name: 'a-1', run: 'a' },
    ]);
  });
});

describe('orphaned Jobs', () => {
  // 'going' is being deleted: not live
  const live = new Set(['live']);

  it('are the Jobs of runs missing or being deleted, never unlabelled or deleting Jobs', () => {
    const jobs = index([
      job('live-a', 'live'),
      job('going-a', 'going'),
      job('ghost-a', 'ghost'),
      job('ghost-b', 'ghost', true),
      job('other', undefined),
    ]);
    expect(orphanJobs(jobs, live)).toEqual(['going-a', 'ghost-a']);
  });

  it('none when every run is there', () => {
    expect(orphanJobs(index([job('live-a', 'live')]), live)).toEqual([]);
  });

  it('the Jobs of one run, for removal with it', () => {
    expect(jobsOfRun(index([job('live-a', 'live'), job('live-b', 'live', true), job('x', 'ghost')]), 'live')).toEqual([
      'live-a',
    ]);
  });
});

describe('which listed runs a sweep reads again and reconciles', () => {
  const names = ['a', 'b'];
  // the run as the function leaves it after starting it: step 0 recorded, its Job created
  const started = runFixture(names, decide(input(runFixture(names), [])).status);

  it('not a run whose current Job is still running: nothing to do', () => {
    expect(movesOnLook(started, [observed(names, 0, 'Active')], CORE_NOW, SETTINGS)).toBe(false);
  });

  it.each([
    ['its Job finished unseen', [observed(names, 0, 'Succeeded', { completionTime: CORE_NOW })]],
    ['its Job failed unseen', [observed(names, 0, 'Failed', { completionTime: CORE_NOW })]],
    ['its Job is gone', []],
  ])('a run whose %s', (_n, jobs) => {
    expect(movesOnLook(started, jobs, CORE_NOW, SETTINGS)).toBe(true);
  });

  it('a run never started, and one stalled past CASCADE_STALL_AFTER_SECONDS', () => {
    expect(movesOnLook(runFixture(names), [], CORE_NOW, SETTINGS)).toBe(true);
    const later = new Date(Date.parse(CORE_NOW) + 3_600_000).toISOString();
    expect(movesOnLook(started, [observed(names, 0, 'Active')], later, { ...SETTINGS, stallAfterSeconds: 60 })).toBe(
      true,
    );
  });

  it('not an ended run released and notified', () => {
    expect(movesOnLook(run('r', ended('Succeeded', DELETED, true)), [], CORE_NOW, SETTINGS)).toBe(false);
  });
});

describe('the CascadeAutoOperator finalizer', () => {
  const running = run('r1', { phase: 'Running' });
  const done = run('r2', ended('Succeeded', DELETED, true));

  it.each([
    ['no operator', undefined, [running], { kind: 'none' }],
    ['operator held, not being deleted', operator([FINALIZER], false), [running], { kind: 'none' }],
    [
      'operator without the finalizer (created while no run started)',
      operator([], false),
      [],
      { kind: 'add', finalizers: [FINALIZER] },
    ],
    [
      'operator with another finalizer only',
      operator(['other/finalizer'], false),
      [],
      { kind: 'add', finalizers: ['other/finalizer', FINALIZER] },
    ],
    ['being deleted without our finalizer', operator(['other/finalizer'], true), [], { kind: 'none' }],
    ['being deleted, a run active', operator([FINALIZER], true), [running, done], { kind: 'wait', active: 1 }],
    [
      'being deleted, a run ended but its slot not yet released',
      operator([FINALIZER], true),
      [run('r3', ended('Failed', DELETED, false)), done],
      { kind: 'wait', active: 1 },
    ],
    [
      'being deleted, the only active run being deleted itself',
      operator([FINALIZER], true),
      [run('r4', { phase: 'Running' }, true)],
      { kind: 'remove', finalizers: [] },
    ],
    [
      'being deleted, nothing active',
      operator(['other/finalizer', FINALIZER], true),
      [done],
      { kind: 'remove', finalizers: ['other/finalizer'] },
    ],
    ['being deleted, no run at all', operator([FINALIZER], true), [], { kind: 'remove', finalizers: [] }],
  ])('%s', (_n, op, runs, expected) => {
    expect(finalizerPlan(op, countNeedingOperator(runs))).toEqual(expected);
  });
});
