import { describe, expect, it } from 'vitest';
import { combineRepeats, distribution, percentile, spread } from './stats.ts';

describe('percentile', () => {
  it.each([
    [50, 5],
    [90, 9],
    [99, 10],
    [100, 10],
    [0, 1],
    [10, 1],
    [11, 2],
  ])('p%d of 1..10 is %d (nearest rank)', (p, expected) => {
    expect(percentile([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], p)).toBe(expected);
  });

  it('is undefined without samples', () => {
    expect(percentile([], 50)).toBeUndefined();
  });

  it('of one sample is that sample', () => {
    expect(percentile([42], 99)).toBe(42);
  });
});

describe('distribution', () => {
  it('gives count, percentiles, max and mean', () => {
    const d = distribution(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(d).toEqual({ n: 100, p50: 50, p95: 95, p99: 99, max: 100, mean: 50.5 });
  });

  it('is only a count when empty', () => {
    expect(distribution([])).toEqual({ n: 0 });
  });
});

describe('spread', () => {
  it('takes the middle value of an odd count', () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
  });

  it('averages the middle two of an even count', () => {
    expect(spread([4, 1, 2, 3])).toEqual({ median: 2.5, min: 1, max: 4, n: 4 });
  });

  it('is undefined without values', () => {
    expect(spread([])).toBeUndefined();
  });
});

describe('combineRepeats', () => {
  it('turns numeric leaves into median and spread, keeps the rest from the first', () => {
    const combined = combineRepeats([
      { a: 1, b: { c: 10 }, label: 'x', list: [1, 5] },
      { a: 3, b: { c: 30 }, label: 'y', list: [3, 7] },
      { a: 2, b: { c: 20 }, label: 'z', list: [2, 6] },
    ]);
    expect(combined).toEqual({
      a: { median: 2, min: 1, max: 3, n: 3 },
      b: { c: { median: 20, min: 10, max: 30, n: 3 } },
      label: 'x',
      list: [
        { median: 2, min: 1, max: 3, n: 3 },
        { median: 6, min: 5, max: 7, n: 3 },
      ],
    });
  });
});
