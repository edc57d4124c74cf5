import { describe, expect, it } from 'vitest';
import { oneLine, quote, REASON_MAX, REASON_MAX_BYTES, VALUE_MAX } from './reason.ts';

const LINE_BREAKING = /[\p{Cc}\u2028\u2029\uD800-\uDFFF]/u;

describe('quote', () => {
  it.each([
    ['plain', 'abc', '"abc"'],
    ['a newline', 'ab\ncd-1', '"ab\\ncd-1"'],
    ['a quote and a backslash', 'a"b\\c', '"a\\"b\\\\c"'],
    ['DEL and a C1 control', 'a\u007fb\u0085', '"a\\u007fb\\u0085"'],
    ['the Unicode line separators', 'a\u2028b\u2029', '"a\\u2028b\\u2029"'],
    ['a lone surrogate', 'a\uD800', '"a\\ud800"'],
    ['a number', 5, '"5"'],
  ])('%s', (_n, value, expected) => {
    expect(quote(value)).toBe(expected);
  });

  it(`cuts a long value to ${VALUE_MAX} characters and says so`, () => {
    expect(quote('x'.repeat(1000))).toBe(`"${'x'.repeat(VALUE_MAX)}"…`);
    expect(quote('x'.repeat(VALUE_MAX))).toBe(`"${'x'.repeat(VALUE_MAX)}"`);
  });

  it('never splits a surrogate pair when it cuts', () => {
    expect(quote(`${'x'.repeat(VALUE_MAX - 1)}😀😀`)).toBe(`"${'x'.repeat(VALUE_MAX - 1)}"…`);
  });
});

describe('oneLine', () => {
  it.each([
    ['CJK', '語'],
    ['emoji', '😀'],
    ['quotes', '"'],
    ['backslashes', '\\'],
  ])('bounds %s to REASON_MAX_BYTES as a JSON string, ending in an ellipsis', (_n, ch) => {
    const line = oneLine(ch.repeat(1000));
    expect(Buffer.byteLength(JSON.stringify(line)) - 2).toBeLessThanOrEqual(REASON_MAX_BYTES);
    expect(line.endsWith('…')).toBe(true);
  });

  it('keeps a short reason of printable text as it is', () => {
    expect(oneLine('unknown run "a-12345"')).toBe('unknown run "a-12345"');
  });

  it('writes every line-breaking character as its escape', () => {
    expect(oneLine('a\nb\r\nc\td\u2028e\u0000')).toBe('a\\nb\\r\\nc\\td\\u2028e\\u0000');
  });

  it.each([
    ['long text', 'y'.repeat(100_000)],
    ['long text of newlines', '\n'.repeat(100_000)],
    ['emoji', '😀'.repeat(1000)],
    ['text just over the bound', 'z'.repeat(REASON_MAX + 1)],
  ])('bounds %s to one line of at most REASON_MAX characters, ending in an ellipsis', (_n, reason) => {
    const line = oneLine(reason);
    expect(line.length).toBeLessThanOrEqual(REASON_MAX);
    expect(line).not.toMatch(LINE_BREAKING);
    expect(line.endsWith('…')).toBe(true);
  });

  it('keeps a reason of exactly REASON_MAX characters whole', () => {
    const reason = 'z'.repeat(REASON_MAX);
    expect(oneLine(reason)).toBe(reason);
  });

  it('never cuts inside an escape', () => {
    expect(oneLine(`${'a'.repeat(REASON_MAX - 3)}\n\n`)).toBe(`${'a'.repeat(REASON_MAX - 3)}\\n…`);
    expect(oneLine(`${'a'.repeat(REASON_MAX - 2)}\n\n`)).toBe(`${'a'.repeat(REASON_MAX - 2)}…`);
  });
});
