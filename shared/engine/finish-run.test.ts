import { describe, expect, it } from 'vitest';
import { withMarks } from './finish-run.ts';

describe('the marks of a run\'s end', () => {
  it.each([
    ['counted, event owed', {}, { counted: true, notified: false }, { counted: true, notified: false }],
    ['counted, no event owed', {}, { counted: true, notified: true }, { counted: true, notified: true }],
    ['sent', { counted: true, notified: false }, { notified: true }, { counted: true, notified: true }],
    ['notified by another process meanwhile: not owed again', { counted: true, notified: true }, { counted: true, notified: false }, { counted: true, notified: true }],
    ['an older version\'s notified run', { notified: true }, { counted: true, notified: false }, { counted: true, notified: true }],
  ])('%s', (_what, status, marks, expected) => {
    expect(withMarks({ phase: 'Succeeded', ...status }, marks)).toEqual({ phase: 'Succeeded', ...expected });
  });
});
