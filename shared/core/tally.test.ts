import { describe, expect, it } from 'vitest';
import type { CascadeRun, RunPhase } from '../api/cascade-run.ts';
import { differs, runState, tally, type RunState } from './tally.ts';

const state = (name: string, phase: RunPhase | undefined, ended?: string): RunState => ({
  name,
  scenario: 's',
  phase,
  ended,
});

describe('tally: the counters as a function of the runs', () => {
  it('counts each run where its phase puts it', () => {
    const runs = [
      state('a', undefined),
      state('b', 'Pending'),
      state('c', 'Running'),
      state('d', 'Queued'),
      state('e', 'Succeeded', '2026-12-04T10:00:00.000Z'),
      state('f', 'Failed', '2026-12-04T10:00:01.000Z'),
      state('g', 'Cancelled', '2026-12-04T09:00:00.000Z'),
    ];
    expect(tally(runs)).toEqual({ active: 3, queued: 1, succeeded: 1, failed: 1, cancelled: 1, result: 'Fail' });
  });

  it('is the same whatever the order, and a run seen twice is still one state', () => {
    const runs = [
      state('x', 'Succeeded', '2026-12-04T10:00:00.000Z'),
      state('y', 'Failed', '2026-12-04T10:00:00.000Z'),
    ];
    expect(tally(runs)).toEqual(tally([...runs].reverse()));
    expect(tally(runs).result).toBe('Fail');
  });

  it('keeps the result shown when no run that ended is left', () => {
    expect(tally([state('a', 'Running')], { result: 'Success' }).result).toBe('Success');
    expect(tally([]).result).toBe('');
  });

  it('a resumed run counts where it is now: out of failed, back in active', () => {
    expect(tally([state('a', 'Failed', '2026-12-04T10:00:00.000Z')])).toMatchObject({ failed: 1, active: 0 });
    expect(tally([state('a', 'Running')], { result: 'Fail' })).toMatchObject({ failed: 0, active: 1 });
  });

  it('a run being deleted counts nowhere', () => {
    const run = { metadata: { name: 'a', deletionTimestamp: '2026-12-04T10:00:00Z' } } as CascadeRun;
    expect(runState(run, 's')).toBeUndefined();
  });

  it('differs: only when a counter shown is another', () => {
    const counts = tally([state('a', 'Running')]);
    expect(differs({ active: 1 }, counts)).toBe(false);
    expect(differs({ active: 1, succeeded: 0, result: '' }, counts)).toBe(false);
    expect(differs({ active: 2 }, counts)).toBe(true);
    expect(differs(undefined, tally([]))).toBe(false);
  });
});
