import { describe, expect, it } from 'vitest';
import { applyCounter, type CounterChange } from './counters.ts';
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';

describe('CascadeAutoOperator counters', () => {
  it.each([
    ['a start adds to active', undefined, { kind: 'started', run: 'r1' }, { active: 1, succeeded: 0, failed: 0 }],
    ['a success ends one active run', { active: 2, succeeded: 0, failed: 0, countedRuns: ['start:r1'] }, { kind: 'ended', run: 'r1', phase: 'Succeeded' },
      { active: 1, succeeded: 1, failed: 0, result: 'Success' }],
    ['a failure ends one active run', { active: 1, succeeded: 3, failed: 0, countedRuns: ['start:r1'] }, { kind: 'ended', run: 'r1', phase: 'Failed' },
      { active: 0, succeeded: 3, failed: 1, result: 'Fail' }],
    ['an end never drives active below zero', { active: 0, succeeded: 0, failed: 0 }, { kind: 'ended', run: 'r9', phase: 'Failed' },
      { active: 0, succeeded: 0, failed: 1, result: 'Fail' }],
  ] as Array<[string, CascadeAutoOperatorStatus | undefined, CounterChange, Partial<CascadeAutoOperatorStatus>]>)('%s', (_n, status, change, expected) => {
    expect(applyCounter(status, change)).toMatchObject(expected);
  });

  it('a start counted after its end leaves active as it was', () => {
    const ended = applyCounter({ active: 0, succeeded: 0, failed: 0 }, { kind: 'ended', run: 'r1', phase: 'Succeeded' });
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
    let status = applyCounter(undefined, { kind: 'started', run: 'r0' });
    for (let i = 1; i <= COUNTED_RUNS_MAX; i++) status = applyCounter(status, { kind: 'started', run: `r${i}` });
    expect(status?.countedRuns).toHaveLength(COUNTED_RUNS_MAX);
    expect(status?.countedRuns?.[0]).toBe('start:r1');
    expect(status?.active).toBe(COUNTED_RUNS_MAX + 1);
  });
});
