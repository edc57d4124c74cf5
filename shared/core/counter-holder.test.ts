import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import {
  HOLD_MARGIN_MS,
  HOLD_MS,
  holderOf,
  leftToHolder,
  mayOwe,
  owedChanges,
  WAIT_CAP_MS,
  WAIT_MS,
  waitOver,
} from './counter-holder.ts';
import { applyCounter, type CounterChange } from './counters.ts';

const run = (status: CascadeRun['status'], extra: Partial<CascadeRun['metadata']> = {}): CascadeRun =>
  ({ metadata: { name: 'x', namespace: 'ns', uid: 'u1', ...extra }, spec: {}, status }) as unknown as CascadeRun;

const apply = (status: CascadeAutoOperatorStatus | undefined, changes: CounterChange[]) =>
  changes.reduce((s, c) => applyCounter(s, c) ?? s, status);

describe('holderOf', () => {
  const now = 100_000;
  it('is no one before any write was seen live, or when it has no writer', () => {
    expect(holderOf(undefined, 'a', now)).toBe('none');
    expect(holderOf({ writer: 'b' }, 'a', now)).toBe('none');
    expect(holderOf({ seenAt: now }, 'a', now)).toBe('none');
  });
  it('is the other process while its writes keep coming, then no one', () => {
    expect(holderOf({ writer: 'b', seenAt: now - HOLD_MS + 1 }, 'a', now)).toBe('other');
    expect(holderOf({ writer: 'b', seenAt: now - HOLD_MS }, 'a', now)).toBe('none');
  });
  it('is this process a margin longer than others wait for it', () => {
    expect(holderOf({ writer: 'a', seenAt: now - HOLD_MS }, 'a', now)).toBe('self');
    expect(holderOf({ writer: 'a', seenAt: now - HOLD_MS - HOLD_MARGIN_MS + 1 }, 'a', now)).toBe('self');
    expect(holderOf({ writer: 'a', seenAt: now - HOLD_MS - HOLD_MARGIN_MS }, 'a', now)).toBe('none');
  });
});

describe('leftToHolder', () => {
  it('leaves starts, ends and marks; a resume or a run gone is written by the process that has it', () => {
    expect(leftToHolder({ kind: 'started', run: 'x' })).toBe(true);
    expect(leftToHolder({ kind: 'ended', run: 'x', phase: 'Failed' })).toBe(true);
    expect(leftToHolder({ kind: 'marked', run: 'x' })).toBe(true);
    expect(leftToHolder({ kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 })).toBe(false);
    expect(leftToHolder({ kind: 'gone', run: 'x' })).toBe(false);
  });
});

describe('owedChanges', () => {
  it('a run without a phase owes its start until the start is counted', () => {
    expect(owedChanges(run(undefined), undefined)).toEqual([{ kind: 'started', run: 'x' }]);
    const counted = apply(undefined, [{ kind: 'started', run: 'x' }]);
    expect(owedChanges(run(undefined), counted)).toEqual([]);
  });

  it('a first phase owes the start its mark, once', () => {
    const counted = apply(undefined, [{ kind: 'started', run: 'x' }]);
    const owed = owedChanges(run({ phase: 'Running' }), counted);
    expect(owed).toEqual([{ kind: 'marked', run: 'x', of: 'start', resumes: undefined }]);
    expect(owedChanges(run({ phase: 'Running' }), apply(counted, owed))).toEqual([]);
  });

  it('an ended run owes its end, with its uid and resumes, until counted; then its mark once marked counted', () => {
    const started = apply(undefined, [
      { kind: 'started', run: 'x' },
      { kind: 'marked', of: 'start', run: 'x' },
    ]);
    const ended = run({ phase: 'Failed', resumes: 2 });
    const owed = owedChanges(ended, started);
    expect(owed).toEqual([{ kind: 'ended', run: 'x', phase: 'Failed', resumes: 2, uid: 'u1' }]);
    const counted = apply(started, owed);
    expect(counted?.failed).toBe(1);
    expect(owedChanges(ended, counted)).toEqual([]);
    const marked = run({ phase: 'Failed', resumes: 2, counted: true });
    expect(owedChanges(marked, counted)).toEqual([{ kind: 'marked', run: 'x', resumes: 2, of: undefined }]);
    expect(apply(counted, owedChanges(marked, counted))?.unmarked).toEqual([]);
  });

  it('a resume recorded counted owes its mark', () => {
    const status: CascadeAutoOperatorStatus = { countedRuns: ['resume:x-r1'], unmarked: ['resume:x-r1'] };
    expect(owedChanges(run({ phase: 'Running', resumes: 1 }), status)).toEqual([]);
    expect(owedChanges(run({ phase: 'Running', resumes: 1, resumeCounted: 1 }), status)).toEqual([
      { kind: 'marked', run: 'x', resumes: 1, of: 'resume' },
    ]);
  });

  it('a running run owes nothing, and a run being deleted owes nothing here', () => {
    expect(owedChanges(run({ phase: 'Running' }), { countedRuns: ['start:x'] })).toEqual([]);
    expect(owedChanges(run(undefined, { deletionTimestamp: '2026-12-02T00:00:00Z' }), undefined)).toEqual([]);
  });
});

describe('mayOwe', () => {
  it('a run without a phase, or ended and not marked counted, may owe; a running or counted run does not', () => {
    expect(mayOwe(run(undefined))).toBe(true);
    expect(mayOwe(run({ phase: 'Cancelled' }))).toBe(true);
    expect(mayOwe(run({ phase: 'Running' }))).toBe(false);
    expect(mayOwe(run({ phase: 'Succeeded', counted: true }))).toBe(false);
  });
});

describe('waitOver', () => {
  it('goes on while another process holds and its writes keep coming, up to the cap', () => {
    expect(waitOver({ holder: 'other', sinceLastWrite: WAIT_MS - 1, waited: WAIT_CAP_MS - 1 })).toBe(false);
    expect(waitOver({ holder: 'other', sinceLastWrite: 0, waited: WAIT_CAP_MS })).toBe(true);
  });
  it('is over once the holder is silent, gone, or this process', () => {
    expect(waitOver({ holder: 'other', sinceLastWrite: WAIT_MS, waited: 0 })).toBe(true);
    expect(waitOver({ holder: 'other', sinceLastWrite: undefined, waited: 0 })).toBe(true);
    expect(waitOver({ holder: 'none', sinceLastWrite: 0, waited: 0 })).toBe(true);
    expect(waitOver({ holder: 'self', sinceLastWrite: 0, waited: 0 })).toBe(true);
  });
});
