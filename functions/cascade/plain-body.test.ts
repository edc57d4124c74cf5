import { describe, expect, it } from 'vitest';
import { isJsonString } from './plain-body.ts';

describe('isJsonString', () => {
  it.each([
    ['a JSON string sent as application/json', { 'content-type': 'application/json' }, 'hello', true],
    ['a JSON object', { 'content-type': 'application/json' }, { iuid: 'x' }, false],
    ['text sent as text/plain', { 'content-type': 'text/plain' }, 'hello', false],
    [
      'a JSON string with a charset (the runtime does not parse it again)',
      { 'content-type': 'application/json; charset=utf-8' },
      'hello',
      false,
    ],
  ])('%s: %s', (_n, headers, body, expected) => {
    expect(isJsonString(headers, body)).toBe(expected);
  });
});
