import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import {
  applyCounter,
  counterKey,
  endUncounted,
  mayHaveDropped,
  stillUncounted,
  trimKeys,
  type CounterChange,
} from './counters.ts';

const apply = (status: CascadeAutoOperatorStatus | undefined, ...changes: CounterChange[]) =>
  changes.reduce((s, c) => applyCounter(s, c) ?? s, status);

/** `n` other runs started and ended, each key unpinned by its mark: 2n keys. */
const others = (n: number, prefix = 'o'): CounterChange[] =>
  Array.from({ length: n }, (_, i) => [
    { kind: 'started', run: `${prefix}${i}` } as const,
    { kind: 'marked', of: 'start', run: `${prefix}${i}` } as const,
    { kind: 'ended', run: `${prefix}${i}`, phase: 'Succeeded' } as const,
    { kind: 'marked', run: `${prefix}${i}` } as const,
  ]).flat();
const startedMarked = (run: string): CounterChange[] => [
  { kind: 'started', run },
  { kind: 'marked', of: 'start', run },
];

const run = (status: CascadeRun['status'], uid = 'u1'): CascadeRun =>
  ({ metadata: { name: 'x', namespace: 'ns', uid }, spec: {}, status }) as unknown as CascadeRun;

describe('end keys pinned until the run is marked', () => {
  it('an end not marked keeps its key past any number of other changes: its repeat counts nothing', () => {
    let s = apply(undefined, ...startedMarked('x'), { kind: 'ended', run: 'x', phase: 'Failed' });
    s = apply(s, ...others(300));
    expect(s?.countedRuns).toContain('end:x');
    expect(s?.unmarked).toEqual(['end:x']);
    expect(applyCounter(s, { kind: 'ended', run: 'x', phase: 'Failed' })).toBeUndefined();
    expect(s).toMatchObject({ failed: 1, succeeded: 300, active: 0 });
  });

  it('a mark unpins the key once; the key may then be dropped, oldest first', () => {
    let s = apply(undefined, { kind: 'ended', run: 'x', phase: 'Succeeded' });
    s = apply(s, { kind: 'marked', run: 'x' });
    expect(s?.unmarked).toEqual([]);
    expect(applyCounter(s, { kind: 'marked', run: 'x' })).toBeUndefined();
    s = apply(s, ...others(COUNTED_RUNS_MAX));
    expect(s?.countedRuns).not.toContain('end:x');
    expect(s?.countedRuns).toHaveLength(COUNTED_RUNS_MAX);
  });

  it('a mark of another outcome (after a resume) leaves the pin of this one', () => {
    const s = apply(undefined, { kind: 'ended', run: 'x', phase: 'Failed', resumes: 1 });
    expect(applyCounter(s, { kind: 'marked', run: 'x' })).toBeUndefined();
    expect(apply(s, { kind: 'marked', run: 'x', resumes: 1 })?.unmarked).toEqual([]);
  });

  it('a resume unpins the end it supersedes, and is pinned itself until its mark', () => {
    const s = apply(
      undefined,
      { kind: 'ended', run: 'x', phase: 'Failed' },
      { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 },
    );
    expect(s?.unmarked).toEqual(['resume:x-r1']);
    expect(s).toMatchObject({ failed: 0, active: 1 });
    expect(apply(s, { kind: 'marked', of: 'resume', run: 'x', resumes: 1 })?.unmarked).toEqual([]);
  });
});

describe('start and resume keys pinned until the run is marked', () => {
  it('a start whose run has no phase keeps its key past any number of other changes: its repeat counts nothing', () => {
    let s = apply(undefined, { kind: 'started', run: 'x' });
    s = apply(s, ...others(300));
    expect(s?.unmarked).toEqual(['start:x']);
    expect(applyCounter(s, { kind: 'started', run: 'x' })).toBeUndefined();
    expect(s).toMatchObject({ active: 1, succeeded: 300 });
    s = apply(s, { kind: 'marked', of: 'start', run: 'x' }, ...others(300, 'p'));
    expect(s?.countedRuns).not.toContain('start:x');
  });

  it('a resume not recorded counted keeps its key past any number of other changes', () => {
    let s = apply(undefined, ...startedMarked('x'), { kind: 'ended', run: 'x', phase: 'Failed' });
    s = apply(s, { kind: 'marked', run: 'x' }, { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 });
    s = apply(s, ...others(300));
    expect(s?.unmarked).toEqual(['resume:x-r1']);
    expect(applyCounter(s, { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 })).toBeUndefined();
    expect(s).toMatchObject({ active: 1, failed: 0 });
  });
});

describe('trimKeys', () => {
  it('drops the oldest unpinned keys beyond the bound and never a pinned one', () => {
    const keys = Array.from({ length: COUNTED_RUNS_MAX + 4 }, (_, i) => `k${i}`);
    const trimmed = trimKeys(keys, ['k0', 'k2']);
    expect(trimmed.slice(0, 3)).toEqual(['k0', 'k2', 'k4']);
    expect(trimmed.filter((k) => k !== 'k0' && k !== 'k2')).toHaveLength(COUNTED_RUNS_MAX);
  });

  it('keeps every key within the bound', () => {
    expect(trimKeys(['a', 'b'], [])).toEqual(['a', 'b']);
  });
});

describe('mayHaveDropped', () => {
  it('is false until the unpinned keys reach the bound, and stays true after', () => {
    expect(mayHaveDropped(undefined)).toBe(false);
    let s = apply(undefined, ...others(COUNTED_RUNS_MAX / 2 - 1));
    expect(mayHaveDropped(s)).toBe(false);
    s = apply(s, ...others(1, 'p'));
    expect(mayHaveDropped(s)).toBe(true);
    s = apply(s, { kind: 'ended', run: 'pinned', phase: 'Failed' });
    expect(mayHaveDropped(s)).toBe(true);
  });
});

describe('stillUncounted: a start or a resume, the run read after the operator copy', () => {
  const start = { kind: 'started', run: 'x' } as const;
  const resume = { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 } as const;
  it.each([
    ['a start, the run with no phase', start, run(undefined), true],
    ['a start, the run queued', start, run({ phase: 'Queued' }), false],
    ['a start, the run running', start, run({ phase: 'Running' }), false],
    ['a start, the run gone', start, undefined, true],
    ['a resume, not recorded counted', resume, run({ phase: 'Running', resumes: 1 }), true],
    ['a resume, recorded counted', resume, run({ phase: 'Running', resumes: 1, resumeCounted: 1 }), false],
    ['a resume, a later one recorded counted', resume, run({ phase: 'Running', resumes: 2, resumeCounted: 2 }), false],
    ['a resume, the run made anew', resume, run({ phase: 'Running' }), false],
    ['a resume, the run gone', resume, undefined, true],
  ] as const)('%s', (_name, change, r, expected) => {
    expect(stillUncounted(change, r)).toBe(expected);
  });
});

describe('endUncounted: the run read after the operator copy', () => {
  const end = { kind: 'ended', run: 'x', phase: 'Succeeded', uid: 'u1' } as const;
  it.each([
    ['the run unmarked', run({ phase: 'Succeeded' }), true],
    ['the run marked counted', run({ phase: 'Succeeded', counted: true }), false],
    ['the run made anew', run({ phase: 'Succeeded' }, 'u2'), false],
    ['the run resumed since', run({ phase: 'Running', resumes: 1 }), false],
    ['the run gone', undefined, true],
  ])('%s: %s', (_name, r, expected) => {
    expect(endUncounted(end, r)).toBe(expected);
  });
});

/**
 * The protocol of finish-run.ts, reconcile.ts and operator-counters.ts on one
 * run `x`, any interleaving: counters each count (reading the run when the key
 * may have been dropped), then mark the run, then unpin; any number of other
 * changes between any two steps. The change is counted once, for an end, a
 * start and a resume alike.
 */
describe('one run, counters and other changes in any order', () => {
  type Step = { kind: 'count' | 'mark' | 'unpin'; counter: number } | { kind: 'others'; n: number };
  const step = fc.oneof(
    fc.record({ kind: fc.constantFrom('count', 'mark', 'unpin'), counter: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('others'), n: fc.integer({ min: 1, max: 150 }) }),
  ) as fc.Arbitrary<Step>;

  interface Protocol {
    /** The operator before the change. */
    before: CascadeAutoOperatorStatus | undefined;
    change: Exclude<CounterChange, { kind: 'gone' | 'marked' }>;
    /** The run as a counter reads it, before or after its mark. */
    runAs: (marked: boolean) => CascadeRun | undefined;
    unpin: CounterChange;
    /** How often the change was counted, from the operator after `others` other runs. */
    times: (s: CascadeAutoOperatorStatus | undefined, others: number) => number;
  }
  const failedRun = apply(
    undefined,
    ...startedMarked('x'),
    { kind: 'ended', run: 'x', phase: 'Failed' },
    { kind: 'marked', run: 'x' },
  );
  const protocols: Record<string, Protocol> = {
    end: {
      before: apply(undefined, ...startedMarked('x')),
      change: { kind: 'ended', run: 'x', phase: 'Succeeded', uid: 'u1' },
      runAs: (marked) => run({ phase: 'Succeeded', counted: marked }),
      unpin: { kind: 'marked', run: 'x' },
      times: (s, others) => (s?.succeeded ?? 0) - others,
    },
    start: {
      before: undefined,
      change: { kind: 'started', run: 'x' },
      runAs: (marked) => run(marked ? { phase: 'Running' } : undefined),
      unpin: { kind: 'marked', of: 'start', run: 'x' },
      times: (s) => s?.active ?? 0,
    },
    resume: {
      before: failedRun,
      change: { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 },
      runAs: (marked) => run({ phase: 'Running', resumes: 1, ...(marked ? { resumeCounted: 1 } : {}) }),
      unpin: { kind: 'marked', of: 'resume', run: 'x', resumes: 1 },
      times: (s) => s?.active ?? 0,
    },
  };

  interface World {
    s: CascadeAutoOperatorStatus | undefined;
    marked: boolean;
    /** Per counter: 0 nothing yet, 1 counted, 2 marked the run, 3 unpinned. */
    done: number[];
    batch: number;
  }

  /** A count, as writeCounters makes it: the run is read when the key may have been dropped. */
  function count(p: Protocol, w: World): void {
    const keyed = w.s?.countedRuns?.includes(counterKey(p.change));
    if (keyed || !mayHaveDropped(w.s) || stillUncounted(p.change, p.runAs(w.marked))) w.s = apply(w.s, p.change);
  }

  function play(p: Protocol, w: World, st: Step): void {
    if (st.kind === 'others') {
      w.s = apply(w.s, ...others(st.n, `b${w.batch++}-`));
      return;
    }
    const at = w.done[st.counter]!;
    if (st.kind === 'count' && at === 0) count(p, w);
    else if (st.kind === 'mark' && at === 1) w.marked = true;
    else if (st.kind === 'unpin' && at === 2) w.s = apply(w.s, p.unpin);
    else return;
    w.done[st.counter] = at + 1;
  }

  it.each(Object.keys(protocols))(
    'counts %s at most once, and once if a counter counted',
    (name) => {
      const p = protocols[name]!;
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          const w: World = { s: p.before, marked: false, done: [0, 0, 0], batch: 0 };
          for (const st of steps) play(p, w, st);
          const otherRuns = steps.reduce((n, st) => n + (st.kind === 'others' ? st.n : 0), 0);
          expect(p.times(w.s, otherRuns)).toBe(w.done.some((d) => d > 0) ? 1 : 0);
        }),
        { numRuns: 100 },
      );
    },
    60_000,
  );
});
