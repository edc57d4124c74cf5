import { describe, expect, it } from 'vitest';
import { formatCell, formatNumber, formatSection, formatTable } from './table.ts';

describe('formatNumber', () => {
  it.each([
    [1234, '1234'],
    [1234.56, '1235'],
    [12.345, '12.3'],
    [3.14159, '3.14'],
    [0.012345, '0.0123'],
    [0.5, '0.5'],
    [0, '0'],
    [7, '7'],
  ])('%d → %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });
});

describe('formatCell', () => {
  it('shows a dash for a missing figure', () => {
    expect(formatCell(undefined)).toBe('–');
    expect(formatCell(null)).toBe('–');
  });
});

describe('formatSection', () => {
  it('aligns the first column left and the figures right', () => {
    const text = formatSection({
      title: 'Latency (ms)',
      head: ['path', 'p50', 'p99'],
      rows: [
        ['job', 12.345, 80],
        ['module result', 3, undefined],
      ],
    });
    expect(text.split('\n')).toEqual([
      '== Latency (ms)',
      'path            p50  p99',
      '-------------  ----  ---',
      'job            12.3   80',
      'module result     3    –',
    ]);
  });
});

describe('formatTable', () => {
  it('separates sections by a blank line', () => {
    const text = formatTable([
      { title: 'A', head: ['x'], rows: [['1']] },
      { title: 'B', head: ['y'], rows: [] },
    ]);
    expect(text).toBe('== A\nx\n-\n1\n\n== B\ny\n-');
  });
});
