import { describe, expect, it } from 'vitest';
import { isLater } from './resource-version.ts';

describe('a later resourceVersion', () => {
  it('is a larger revision, compared as a number, not as text', () => {
    expect(isLater('10', '9')).toBe(true);
    expect(isLater('9', '10')).toBe(false);
    expect(isLater('10', '10')).toBe(false);
    expect(isLater('18446744073709551616', '18446744073709551615')).toBe(true);
  });

  it('is never a version that is not a number, nor a missing one', () => {
    expect(isLater('z1', '1')).toBe(false);
    expect(isLater('2', 'z1')).toBe(false);
    expect(isLater(undefined, '1')).toBe(false);
    expect(isLater('2', undefined)).toBe(false);
  });
});
