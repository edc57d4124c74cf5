import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import { applyCounter, type CounterChange } from './counters.ts';
import { admissionOf, limitOf, promotedRuns } from './concurrency-limit.ts';

type S = CascadeAutoOperatorStatus | undefined;

/** Applies changes in order under `limit`; a change already counted leaves the status as it was. */
function play(status: S, limit: number, ...changes: CounterChange[]): S {
  return changes.reduce<S>((s, c) => applyCounter(s, c, limit) ?? s, status);
}
const start = (run: string): CounterChange => ({ kind: 'started', run });
const end = (run: string, phase: 'Succeeded' | 'Failed' = 'Succeeded'): CounterChange => ({
  kind: 'ended',
  run,
  phase,
});
const gone = (run: string): CounterChange => ({ kind: 'gone', run });
const view = (s: S) => ({
  active: s?.active ?? 0,
  queued: s?.queued ?? 0,
  holders: s?.holders ?? [],
  queue: s?.queue ?? [],
});

describe('the concurrency limit: admission in the counter write', () => {
  it.each<[string, number, CounterChange[], ReturnType<typeof view>]>([
    ['under the limit a start takes a slot', 2, [start('a')], { active: 1, queued: 0, holders: ['a'], queue: [] }],
    [
      'at the limit a start is queued',
      1,
      [start('a'), start('b')],
      { active: 1, queued: 1, holders: ['a'], queue: ['b'] },
    ],
    [
      'an end hands its slot to the oldest queued run',
      1,
      [start('a'), start('b'), start('c'), end('a')],
      { active: 1, queued: 1, holders: ['b'], queue: ['c'] },
    ],
    [
      'a failure hands its slot on as well',
      1,
      [start('a'), start('b'), end('a', 'Failed')],
      { active: 1, queued: 0, holders: ['b'], queue: [] },
    ],
    [
      'a queued run that ends (cancelled) leaves the queue, not active',
      1,
      [start('a'), start('b'), start('c'), end('b', 'Failed')],
      { active: 1, queued: 1, holders: ['a'], queue: ['c'] },
    ],
    [
      'a start after a free slot appeared does not jump the queue',
      1,
      [start('a'), start('b'), end('a'), start('c')],
      { active: 1, queued: 1, holders: ['b'], queue: ['c'] },
    ],
    [
      'a start delivered twice is admitted once',
      1,
      [start('a'), start('b'), start('b'), start('a')],
      { active: 1, queued: 1, holders: ['a'], queue: ['b'] },
    ],
    [
      'an end delivered twice frees one slot',
      1,
      [start('a'), start('b'), start('c'), end('a'), end('a')],
      { active: 1, queued: 1, holders: ['b'], queue: ['c'] },
    ],
    [
      'a run gone in flight frees its slot',
      1,
      [start('a'), start('b'), gone('a')],
      { active: 1, queued: 0, holders: ['b'], queue: [] },
    ],
    [
      'a queued run gone leaves the queue',
      1,
      [start('a'), start('b'), start('c'), gone('b')],
      { active: 1, queued: 1, holders: ['a'], queue: ['c'] },
    ],
    [
      'a run gone twice, or never held, changes nothing',
      1,
      [start('a'), gone('x'), gone('a'), gone('a')],
      { active: 0, queued: 0, holders: [], queue: [] },
    ],
    [
      'a start counted after its end takes no slot',
      1,
      [end('a'), start('a')],
      { active: 0, queued: 0, holders: [], queue: [] },
    ],
    [
      'without a limit no list is kept',
      Infinity,
      [start('a'), start('b'), end('a')],
      { active: 1, queued: 0, holders: [], queue: [] },
    ],
  ])('%s', (_name, limit, changes, expected) => {
    expect(view(play(undefined, limit, ...changes))).toEqual(expected);
  });

  it('keeps active + queued + ended = runs started, and the slots at the limit, through any interleaving', () => {
    const limit = 3;
    let s: S;
    const live: string[] = [];
    for (let i = 0; i < 40; i++) {
      s = play(s, limit, start(`r${i}`));
      live.push(`r${i}`);
      if (i % 3 === 2) s = play(s, limit, end(live.shift()!));
      const v = { ...view(s), succeeded: s?.succeeded ?? 0 };
      expect(v.holders.length).toBeLessThanOrEqual(limit);
      expect(v.active + v.queued + v.succeeded).toBe(i + 1);
      expect(v.active).toBe(v.holders.length);
    }
  });

  it('admits in the order the starts were counted (FIFO)', () => {
    let s = play(undefined, 2, ...['a', 'b', 'c', 'd', 'e'].map(start));
    const admitted = [...(s?.holders ?? [])];
    for (const run of ['a', 'b', 'c', 'd', 'e']) {
      s = play(s, 2, end(run));
      for (const h of s?.holders ?? []) if (!admitted.includes(h)) admitted.push(h);
    }
    expect(admitted).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('a limit raised lets as many queued runs in at the next change; removed, all of them', () => {
    const at1 = play(undefined, 1, start('a'), start('b'), start('c'), start('d'));
    expect(view(play(at1, 3, start('e')))).toEqual({
      active: 3,
      queued: 2,
      holders: ['a', 'b', 'c'],
      queue: ['d', 'e'],
    });
    expect(view(play(at1, Infinity, end('a')))).toMatchObject({ active: 3, queued: 0, queue: [] });
  });

  it.each<[string, S, string, ReturnType<typeof admissionOf>]>([
    ['a holder is admitted', { holders: ['a'] }, 'a', 'admitted'],
    ['a queued run is queued', { holders: ['a'], queue: ['b'] }, 'b', 'queued'],
    ['a counted run on no list is admitted (no limit, or ended)', { countedRuns: ['start:c'] }, 'c', 'admitted'],
    ['an uncounted run is unknown', { holders: ['a'] }, 'd', 'unknown'],
    ['no status: unknown', undefined, 'a', 'unknown'],
  ])('admissionOf: %s', (_name, status, run, expected) => {
    expect(admissionOf(status, run)).toBe(expected);
  });

  it('promotedRuns: out of the queue into a slot, not those that ended or went', () => {
    expect(promotedRuns({ queue: ['b', 'c', 'd'] }, { queue: ['d'] }, ['c'])).toEqual(['b']);
    expect(promotedRuns(undefined, { queue: ['a'] }, [])).toEqual([]);
  });

  it.each([
    [undefined, Infinity],
    [0, Infinity],
    [2.5, Infinity],
    [-1, Infinity],
    [5, 5],
  ])('limitOf(%s) = %s', (raw, limit) => {
    expect(limitOf(raw)).toBe(limit);
  });
});
