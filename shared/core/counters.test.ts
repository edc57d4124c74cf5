import { describe, expect, it } from 'vitest';
import { applyCounter, type CounterChange } from './counters.ts';
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';

describe('CascadeAutoOperator counters', () => {
  it.each([
    [
      'a start adds to active',
      undefined,
      { kind: 'started', run: 'r1' },
      { active: 1, succeeded: 0, failed: 0, cancelled: 0 },
    ],
    [
      'a success ends one active run',
      { active: 2, succeeded: 0, failed: 0, countedRuns: ['start:r1'] },
      { kind: 'ended', run: 'r1', phase: 'Succeeded' },
      { active: 1, succeeded: 1, failed: 0, result: 'Success' },
    ],
    [
      'a failure ends one active run',
      { active: 1, succeeded: 3, failed: 0, countedRuns: ['start:r1'] },
      { kind: 'ended', run: 'r1', phase: 'Failed' },
      { active: 0, succeeded: 3, failed: 1, result: 'Fail' },
    ],
    [
      'a cancel ends one active run and counts it cancelled',
      { active: 2, succeeded: 1, failed: 1, countedRuns: ['start:r1'] },
      { kind: 'ended', run: 'r1', phase: 'Cancelled' },
      { active: 1, succeeded: 1, failed: 1, cancelled: 1, result: 'Cancelled' },
    ],
    [
      'an end never drives active below zero',
      { active: 0, succeeded: 0, failed: 0 },
      { kind: 'ended', run: 'r9', phase: 'Failed' },
      { active: 0, succeeded: 0, failed: 1, result: 'Fail' },
    ],
  ] as Array<[string, CascadeAutoOperatorStatus | undefined, CounterChange, Partial<CascadeAutoOperatorStatus>]>)(
    '%s',
    (_n, status, change, expected) => {
      expect(applyCounter(status, change)).toMatchObject(expected);
    },
  );

  it('a start counted after its end leaves active as it was', () => {
    const ended = applyCounter(
      { active: 0, succeeded: 0, failed: 0 },
      { kind: 'ended', run: 'r1', phase: 'Succeeded' },
    );
    expect(applyCounter(ended, { kind: 'started', run: 'r1' })).toMatchObject({ active: 0, succeeded: 1 });
  });

  it('counts each change once', () => {
    const once = applyCounter(undefined, { kind: 'started', run: 'r1' });
    expect(applyCounter(once, { kind: 'started', run: 'r1' })).toBeUndefined();
    const ended = applyCounter(once, { kind: 'ended', run: 'r1', phase: 'Succeeded' });
    expect(applyCounter(ended, { kind: 'ended', run: 'r1', phase: 'Succeeded' })).toBeUndefined();
    expect(ended).toMatchObject({ active: 0, succeeded: 1 });
  });

  it('keeps the dedupe list bounded, oldest dropped', () => {
    // Each start marked, as its run's first phase is written: only unpinned keys are dropped.
    const startMarked = (s: CascadeAutoOperatorStatus | undefined, run: string) =>
      applyCounter(applyCounter(s, { kind: 'started', run }), { kind: 'marked', of: 'start', run });
    let status = startMarked(undefined, 'r0');
    for (let i = 1; i <= COUNTED_RUNS_MAX; i++) status = startMarked(status, `r${i}`);
    expect(status?.countedRuns).toHaveLength(COUNTED_RUNS_MAX);
    expect(status?.countedRuns?.[0]).toBe('start:r1');
    expect(status?.active).toBe(COUNTED_RUNS_MAX + 1);
  });
});

describe('counters of a resumed run', () => {
  const apply = (status: CascadeAutoOperatorStatus | undefined, ...changes: CounterChange[]) =>
    changes.reduce((s, c) => applyCounter(s, c) ?? s, status);
  const start: CounterChange = { kind: 'started', run: 'r1' };
  const failed: CounterChange = { kind: 'ended', run: 'r1', phase: 'Failed' };
  const resumed = (n: number): CounterChange => ({ kind: 'resumed', run: 'r1', from: 'Failed', resumes: n });

  it('failed, resumed, succeeded: failed-1 and active+1 on the resume, then active-1 and succeeded+1', () => {
    const ended = apply(undefined, start, failed);
    expect(ended).toMatchObject({ active: 0, failed: 1 });
    const back = apply(ended, resumed(1));
    expect(back).toMatchObject({ active: 1, failed: 0, succeeded: 0 });
    expect(apply(back, { kind: 'ended', run: 'r1', phase: 'Succeeded', resumes: 1 })).toMatchObject({
      active: 0,
      failed: 0,
      succeeded: 1,
      result: 'Success',
    });
  });

  it('failed twice, resumed twice: every outcome its own key, every change once', () => {
    const s = apply(
      undefined,
      start,
      failed,
      resumed(1),
      { kind: 'ended', run: 'r1', phase: 'Failed', resumes: 1 },
      resumed(2),
    );
    expect(s).toMatchObject({ active: 1, failed: 0 });
    expect(s?.countedRuns).toEqual(['start:r1', 'end:r1', 'resume:r1-r1', 'end:r1-r1', 'resume:r1-r2']);
    expect(apply(s, resumed(2), resumed(1), failed)).toBe(s);
  });

  it('a resume counted before the end it undoes counts that end; the end counted late changes nothing', () => {
    const s = apply(undefined, start, resumed(1));
    expect(s).toMatchObject({ active: 1, failed: 0 });
    expect(applyCounter(s, failed)).toBeUndefined();
  });

  it('a resume from Cancelled takes the run from `cancelled`', () => {
    const s = applyCounter(
      {
        active: 0,
        succeeded: 0,
        failed: 0,
        cancelled: 1,
        countedRuns: ['start:r1', 'end:r1'],
      } as CascadeAutoOperatorStatus,
      { kind: 'resumed', run: 'r1', from: 'Cancelled' as 'Failed', resumes: 1 },
    );
    expect(s).toMatchObject({ active: 1, failed: 0, cancelled: 0 });
  });
});

describe('a resumed run under maxConcurrentRuns', () => {
  const applyAt = (limit: number, status: CascadeAutoOperatorStatus | undefined, ...changes: CounterChange[]) =>
    changes.reduce((s, c) => applyCounter(s, c, limit) ?? s, status);

  it('holds a slot at once, even over the limit, and no queued run is admitted until the scenario is under it again', () => {
    // limit 1: r1 runs and fails, r2 starts in the freed slot, r3 queues; r1 is resumed.
    const s = applyAt(
      1,
      undefined,
      { kind: 'started', run: 'r1' },
      { kind: 'ended', run: 'r1', phase: 'Failed' },
      { kind: 'started', run: 'r2' },
      { kind: 'started', run: 'r3' },
      { kind: 'resumed', run: 'r1', from: 'Failed', resumes: 1 },
    );
    expect(s).toMatchObject({ holders: ['r2', 'r1'], queue: ['r3'], active: 2, failed: 0 });
    // r2 ends: still at the limit (r1 holds a slot), r3 keeps waiting.
    const after2 = applyAt(1, s, { kind: 'ended', run: 'r2', phase: 'Succeeded' });
    expect(after2).toMatchObject({ holders: ['r1'], queue: ['r3'], active: 1 });
    // r1 ends: r3 takes the slot.
    expect(applyAt(1, after2, { kind: 'ended', run: 'r1', phase: 'Succeeded', resumes: 1 })).toMatchObject({
      holders: ['r3'],
      queue: [],
      active: 1,
      succeeded: 2,
    });
  });
});
