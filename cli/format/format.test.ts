import { describe, expect, it } from 'vitest';
import { colourEnabled, palette } from './colour.ts';
import { formatAge, formatElapsed, parseDuration, span } from './duration.ts';
import { table, visibleWidth } from './table.ts';

describe('durations', () => {
  it.each([
    [0, '0s'],
    [45_000, '45s'],
    [119_000, '119s'],
    [192_000, '3m12s'],
    [600_000, '10m'],
    [25 * 60_000, '25m'],
    [3 * 3600_000, '3h'],
    [(2 * 60 + 15) * 60_000 + 3600_000, '3h15m'],
    [10 * 3600_000, '10h'],
    [(3 * 24 + 4) * 3600_000, '3d4h'],
    [12 * 24 * 3600_000, '12d'],
  ])('an age of %i ms is %s, as kubectl prints it', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });

  it.each([
    [400, '0.4s'],
    [12_345, '12.3s'],
    [184_000, '3m04s'],
    [3_720_000, '1h02m'],
    [-5, '0.0s'],
  ])('%i ms elapsed is %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });

  it('a span runs to its end, or to now while it goes on; none before it starts', () => {
    expect(span('2026-01-01T00:00:00Z', '2026-01-01T00:00:05Z', 0)).toBe(5000);
    expect(span('2026-01-01T00:00:00Z', undefined, Date.parse('2026-01-01T00:00:02Z'))).toBe(2000);
    expect(span(undefined, undefined, 0)).toBeUndefined();
  });
});

describe('tables', () => {
  it('upper-cases the headers and aligns the columns three spaces apart, without trailing blanks', () => {
    expect(
      table(
        ['name', 'phase', 'age'],
        [
          ['a-long-name', 'Running', '3s'],
          ['b', 'Failed', ''],
        ],
      ),
    ).toEqual(['NAME          PHASE     AGE', 'a-long-name   Running   3s', 'b             Failed']);
  });

  it('gives colour codes no width', () => {
    const p = palette(true);
    expect(visibleWidth(p.phase('Failed'))).toBe(6);
    expect(
      table(
        ['phase', 'x'],
        [
          [p.phase('Failed'), '1'],
          ['Running', '2'],
        ],
      )[1],
    ).toBe(`${p.phase('Failed')}    1`);
  });
});

describe('colours', () => {
  it('only on a terminal, and never when NO_COLOR is set to something', () => {
    expect(colourEnabled(true, {})).toBe(true);
    expect(colourEnabled(true, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled(true, { NO_COLOR: '' })).toBe(true);
    expect(colourEnabled(false, {})).toBe(false);
    expect(colourEnabled(undefined, {})).toBe(false);
  });

  it('a palette that is off leaves the text as it is', () => {
    const off = palette(false);
    expect([off.phase('Succeeded'), off.dim('x'), off.bold('y')]).toEqual(['Succeeded', 'x', 'y']);
    expect(palette(true).phase('Succeeded')).toBe('\x1b[32mSucceeded\x1b[0m');
    expect(palette(true).phase('Unheard-of')).toBe('Unheard-of');
  });
});

describe('parseDuration', () => {
  it('reads Go durations, and days', () => {
    expect(['90s', '30m', '1h30m', '2d', '500ms', '1.5h'].map(parseDuration)).toEqual([
      90_000, 1_800_000, 5_400_000, 172_800_000, 500, 5_400_000,
    ]);
    expect(['', '1x', 'h', '10'].map(parseDuration)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
