import { describe, expect, it } from 'vitest';
import { callerAllowed } from './caller-token.ts';

const TOKEN = 'f3c1a9e07b5d4c2a8e6f1b3d5c7a9e0b2d4f6a8c1e3b5d7f';

describe('the caller token', () => {
  it('lets a caller with Authorization: Bearer <token> in', () => {
    expect(callerAllowed(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(callerAllowed(`bearer ${TOKEN}`, TOKEN)).toBe(true); // the scheme is case-insensitive (RFC 9110)
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another token', `Bearer ${TOKEN.slice(0, -1)}0`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 20)}`],
    ['the token and more', `Bearer ${TOKEN}x`],
    ['the token without a scheme', TOKEN],
    ['another scheme', `Basic ${TOKEN}`],
    ['the scheme alone', 'Bearer '],
    ['a space too many', `Bearer  ${TOKEN}`],
    ['a trailing space', `Bearer ${TOKEN} `],
    ['two headers', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]],
  ])('keeps out %s', (_what, header) => {
    expect(callerAllowed(header, TOKEN)).toBe(false);
  });
});
