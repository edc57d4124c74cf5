import { describe, expect, it } from 'vitest';
import { endOf, lineReader, pauseAfter, resumeFrom } from './watch-stream.ts';

describe("a watch's body", () => {
  it('is read as whole JSON lines, however the chunks cut it', () => {
    const lines: string[] = [];
    const read = lineReader((l) => lines.push(l));
    read('{"type":"ADDED"}\n{"ty');
    expect(lines).toEqual(['{"type":"ADDED"}']);
    read('pe":"MODIFIED"}\n\n{"type":"DELETED"}');
    read('\n');
    expect(lines).toEqual(['{"type":"ADDED"}', '{"type":"MODIFIED"}', '{"type":"DELETED"}']);
  });
});

describe('where a watch is opened again', () => {
  it("from each line's resourceVersion, bookmarks included; from the current state after a 410", () => {
    expect(resumeFrom(undefined, { type: 'ADDED', object: { metadata: { resourceVersion: '5' } } })).toBe('5');
    expect(resumeFrom('5', { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } })).toBe('9');
    expect(resumeFrom('9', { type: 'ERROR', object: { code: 500 } })).toBe('9');
    expect(resumeFrom('9', { type: 'ERROR', object: { code: 410 } })).toBeUndefined();
  });
});

describe('how a watch ended, and the pause before the next', () => {
  it('ended by the API server, failed, or refused', () => {
    expect(endOf(200, true)).toBe('ended');
    expect(endOf(200, false)).toBe('failed');
    expect(endOf(410, true)).toBe('failed');
    expect(endOf(500, true)).toBe('failed');
    expect(endOf(403, true)).toBe('refused');
    expect(endOf(401, true)).toBe('refused');
  });

  it('short after an end, doubling after each failure in a row up to 30 s, a minute after a refusal', () => {
    expect(pauseAfter('ended', 0)).toBe(100);
    expect([1, 2, 3, 7, 20].map((n) => pauseAfter('failed', n))).toEqual([500, 1000, 2000, 30_000, 30_000]);
    expect(pauseAfter('refused', 1)).toBe(60_000);
  });
});
