import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COUNTED_RUNS_MAX, type CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { applyCounter, endUncounted, mayHaveDropped, trimKeys, type CounterChange } from './counters.ts';

const apply = (status: CascadeAutoOperatorStatus | undefined, ...changes: CounterChange[]) =>
  changes.reduce((s, c) => applyCounter(s, c) ?? s, status);

/** `n` other runs started and ended: 2n keys. */
const others = (n: number, prefix = 'o'): CounterChange[] =>
  Array.from({ length: n }, (_, i) => [
    { kind: 'started', run: `${prefix}${i}` } as const,
    { kind: 'ended', run: `${prefix}${i}`, phase: 'Succeeded' } as const,
    { kind: 'marked', run: `${prefix}${i}` } as const,
  ]).flat();

const run = (status: CascadeRun['status'], uid = 'u1'): CascadeRun =>
  ({ metadata: { name: 'x', namespace: 'ns', uid }, spec: {}, status }) as unknown as CascadeRun;

describe('end keys pinned until the run is marked', () => {
  it('an end not marked keeps its key past any number of other changes: its repeat counts nothing', () => {
    let s = apply(undefined, { kind: 'started', run: 'x' }, { kind: 'ended', run: 'x', phase: 'Failed' });
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

  it('a resume unpins the end it supersedes', () => {
    const s = apply(
      undefined,
      { kind: 'ended', run: 'x', phase: 'Failed' },
      { kind: 'resumed', run: 'x', from: 'Failed', resumes: 1 },
    );
    expect(s?.unmarked).toEqual([]);
    expect(s).toMatchObject({ failed: 0, active: 1 });
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
 * The protocol of finish-run.ts and operator-counters.ts on one run `x`, any
 * interleaving: finishers each count (reading the run when the key may have
 * been dropped), then mark the run, then unpin; any number of other changes
 * between any two steps. Its end is counted once.
 */
describe('one run, finishers and other changes in any order', () => {
  type Step = { kind: 'count' | 'mark' | 'unpin'; finisher: number } | { kind: 'others'; n: number };
  const step = fc.oneof(
    fc.record({ kind: fc.constantFrom('count', 'mark', 'unpin'), finisher: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('others'), n: fc.integer({ min: 1, max: 150 }) }),
  ) as fc.Arbitrary<Step>;

  interface World {
    s: CascadeAutoOperatorStatus | undefined;
    marked: boolean;
    /** Per finisher: 0 nothing yet, 1 counted, 2 marked the run, 3 unpinned. */
    done: number[];
    batch: number;
  }
  const end = { kind: 'ended', run: 'x', phase: 'Succeeded', uid: 'u1' } as const;

  /** A finisher's count, as writeCounters makes it: the run is read when the key may have been dropped. */
  function count(w: World): void {
    const keyed = w.s?.countedRuns?.includes('end:x');
    if (keyed || !mayHaveDropped(w.s) || endUncounted(end, run({ phase: 'Succeeded', counted: w.marked })))
      w.s = apply(w.s, end);
  }

  function play(w: World, st: Step): void {
    if (st.kind === 'others') {
      w.s = apply(w.s, ...others(st.n, `b${w.batch++}-`));
      return;
    }
    const at = w.done[st.finisher]!;
    if (st.kind === 'count' && at === 0) count(w);
    else if (st.kind === 'mark' && at === 1) w.marked = true;
    else if (st.kind === 'unpin' && at === 2) w.s = apply(w.s, { kind: 'marked', run: 'x' });
    else return;
    w.done[st.finisher] = at + 1;
  }

  it('counts the end at most once, and once if a finisher counted', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const w: World = {
          s: apply(undefined, { kind: 'started', run: 'x' }),
          marked: false,
          done: [0, 0, 0],
          batch: 0,
        };
        for (const st of steps) play(w, st);
        const otherEnds = steps.reduce((n, st) => n + (st.kind === 'others' ? st.n : 0), 0);
        expect((w.s?.succeeded ?? 0) - otherEnds).toBe(w.done.some((d) => d > 0) ? 1 : 0);
      }),
      { numRuns: 100 },
    );
  });
});
