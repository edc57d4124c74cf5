import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import {
  admissionOf,
  applySlot,
  attemptOf,
  limitOf,
  promotedRuns,
  slotOf,
  type SlotChange,
} from './concurrency-limit.ts';

type S = Pick<CascadeAutoOperatorStatus, 'holders' | 'queue'>;

/** Applies changes in order under `limit`. */
function play(status: S, limit: number, ...changes: SlotChange[]): S {
  return changes.reduce<S>((s, c) => applySlot(s, c, limit), status);
}
const start = (run: string): SlotChange => ({ kind: 'started', run });
const end = (run: string, attempt = 0): SlotChange => ({ kind: 'ended', run, attempt });
const resume = (run: string, attempt: number): SlotChange => ({ kind: 'resumed', run, attempt });
const gone = (run: string): SlotChange => ({ kind: 'gone', run });
const view = (s: S) => ({ holders: s.holders ?? [], queue: s.queue ?? [] });

describe('the concurrency limit: slots and a queue on the operator', () => {
  it.each<[string, number, SlotChange[], ReturnType<typeof view>]>([
    ['under the limit a start takes a slot', 2, [start('a')], { holders: ['a'], queue: [] }],
    ['at the limit a start is queued', 1, [start('a'), start('b')], { holders: ['a'], queue: ['b'] }],
    [
      'an end hands its slot to the oldest queued run',
      1,
      [start('a'), start('b'), start('c'), end('a')],
      { holders: ['b'], queue: ['c'] },
    ],
    [
      'a queued run that ends (cancelled) leaves the queue',
      1,
      [start('a'), start('b'), start('c'), end('b')],
      { holders: ['a'], queue: ['c'] },
    ],
    [
      'a start after a free slot appeared does not jump the queue',
      1,
      [start('a'), start('b'), end('a'), start('c')],
      { holders: ['b'], queue: ['c'] },
    ],
    [
      'a start delivered twice is admitted once',
      1,
      [start('a'), start('b'), start('b'), start('a')],
      { holders: ['a'], queue: ['b'] },
    ],
    [
      'an end delivered twice frees one slot',
      1,
      [start('a'), start('b'), start('c'), end('a'), end('a')],
      { holders: ['b'], queue: ['c'] },
    ],
    ['a run gone in flight frees its slot', 1, [start('a'), start('b'), gone('a')], { holders: ['b'], queue: [] }],
    [
      'a queued run gone leaves the queue',
      1,
      [start('a'), start('b'), start('c'), gone('b')],
      { holders: ['a'], queue: ['c'] },
    ],
    ['a run gone twice, or never held, changes nothing', 1, [start('a'), gone('x'), gone('a'), gone('a')], view({})],
    [
      'a resume holds a slot at once, even over the limit',
      1,
      [start('a'), end('a'), start('b'), resume('a', 1)],
      { holders: ['b', 'a/r1'], queue: [] },
    ],
    [
      "a late end of the attempt before a resume leaves the resume's slot",
      1,
      [start('a'), resume('a', 1), end('a', 0), start('b')],
      { holders: ['a/r1'], queue: ['b'] },
    ],
    [
      'a run gone leaves every slot of its attempts',
      2,
      [start('a'), resume('a', 1), start('b'), start('c'), gone('a')],
      { holders: ['b', 'c'], queue: [] },
    ],
    ['without a limit no list is kept', Infinity, [start('a'), start('b'), end('a'), resume('b', 1)], view({})],
  ])('%s', (_name, limit, changes, expected) => {
    expect(view(play({}, limit, ...changes))).toEqual(expected);
  });

  it('never holds more slots than the limit through starts and ends in any order', () => {
    const limit = 3;
    let s: S = {};
    const live: string[] = [];
    for (let i = 0; i < 40; i++) {
      s = play(s, limit, start(`r${i}`));
      live.push(`r${i}`);
      if (i % 3 === 2) s = play(s, limit, end(live.shift()!));
      expect(view(s).holders.length).toBeLessThanOrEqual(limit);
      expect(view(s).holders.length + view(s).queue.length).toBe(live.length);
    }
  });

  it('admits in the order the starts were written (FIFO)', () => {
    let s = play({}, 2, ...['a', 'b', 'c', 'd', 'e'].map(start));
    const admitted = [...(s.holders ?? [])];
    for (const run of ['a', 'b', 'c', 'd', 'e']) {
      s = play(s, 2, end(run));
      for (const h of s.holders ?? []) if (!admitted.includes(h)) admitted.push(h);
    }
    expect(admitted).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('a limit raised lets as many queued runs in at the next change; removed, all of them', () => {
    const at1 = play({}, 1, start('a'), start('b'), start('c'), start('d'));
    expect(view(play(at1, 3, start('e')))).toEqual({ holders: ['a', 'b', 'c'], queue: ['d', 'e'] });
    expect(view(play(at1, Infinity, end('a')))).toMatchObject({ queue: [] });
  });

  it('a change that changes nothing returns the same object', () => {
    const s: S = { holders: ['a'], queue: ['b'] };
    expect(applySlot(s, start('a'), 1)).toBe(s);
    expect(applySlot(s, end('x'), 1)).toBe(s);
  });

  it.each<[string, S | undefined, string, ReturnType<typeof admissionOf>]>([
    ['a holder is admitted', { holders: ['a'] }, 'a', 'admitted'],
    ['a queued run is queued', { holders: ['a'], queue: ['b'] }, 'b', 'queued'],
    ['a run on no list is unknown', { holders: ['a'] }, 'd', 'unknown'],
    ['no status: unknown', undefined, 'a', 'unknown'],
  ])('admissionOf: %s', (_name, status, run, expected) => {
    expect(admissionOf(status, run)).toBe(expected);
  });

  it('an entry names a run and its attempt, and reads back', () => {
    expect(slotOf('run-1')).toBe('run-1');
    expect(slotOf('run-1', 2)).toBe('run-1/r2');
    expect(attemptOf('run-1/r2')).toEqual({ run: 'run-1', attempt: 2 });
    expect(attemptOf('run-r2')).toEqual({ run: 'run-r2', attempt: 0 });
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
