import { describe, expect, it } from 'vitest';
import { versionAfter } from './kept-watch.ts';

describe('where a kept watch opens again', () => {
  it.each([
    ['a change: its version', '5', 'MODIFIED', { metadata: { resourceVersion: '7' } }, '7'],
    ['the first change', undefined, 'ADDED', { metadata: { resourceVersion: '3' } }, '3'],
    ['a bookmark: its version', '5', 'BOOKMARK', { metadata: { resourceVersion: '9' } }, '9'],
    ['410 Gone: the current state', '5', 'ERROR', { code: 410 }, undefined],
    ['another error: where it was', '5', 'ERROR', { code: 500 }, '5'],
    ['a line without a version: where it was', '5', 'DELETED', {}, '5'],
  ])('%s', (_what, since, phase, obj, expected) => {
    expect(versionAfter(since, phase, obj)).toBe(expected);
  });
});
