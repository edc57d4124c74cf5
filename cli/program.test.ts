import { describe, expect, it } from 'vitest';
import { parseTimeout } from './commands/timeout-option.ts';
import { splitShortEquals } from './program.ts';

describe('the command line', () => {
  it('reads -n=ns and -o=json as kubectl does: the value after the =', () => {
    expect(splitShortEquals(['-n=cascade-operator', 'list', '-o=json'])).toEqual(['-n', 'cascade-operator', 'list', '-o', 'json']);
    expect(splitShortEquals(['--namespace=x', '-n', 'y', '-A'])).toEqual(['--namespace=x', '-n', 'y', '-A']);
    expect(splitShortEquals(['logs', '--', '-n=x'])).toEqual(['logs', '--', '-n=x']);
  });
});

describe('--timeout', () => {
  it('takes seconds, as 60, 60s or 2m', () => {
    expect([parseTimeout('60'), parseTimeout('45s'), parseTimeout('2m')]).toEqual([60, 45, 120]);
    expect(() => parseTimeout('soon')).toThrow('--timeout soon: give seconds, as 60, 60s or 2m');
  });
});
