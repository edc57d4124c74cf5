import { describe, expect, it } from 'vitest';
import { endOf, lineReader } from './watch-stream.ts';

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

describe('how a watch ended', () => {
  it('ended by the API server, gone, failed, or refused', () => {
    expect(endOf(200, true)).toBe('ended');
    expect(endOf(200, false)).toBe('failed');
    expect(endOf(410, true)).toBe('gone');
    expect(endOf(500, true)).toBe('failed');
    expect(endOf(403, true)).toBe('refused');
    expect(endOf(401, true)).toBe('refused');
  });
});
