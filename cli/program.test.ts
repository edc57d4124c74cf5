import { describe, expect, it } from 'vitest';
import { splitShortEquals } from './program.ts';

describe('the command line', () => {
  it('reads -n=ns and -o=json as kubectl does: the value after the =', () => {
    expect(splitShortEquals(['-n=cascade-operator', 'list', '-o=json'])).toEqual(['-n', 'cascade-operator', 'list', '-o', 'json']);
    expect(splitShortEquals(['--namespace=x', '-n', 'y', '-A'])).toEqual(['--namespace=x', '-n', 'y', '-A']);
    expect(splitShortEquals(['logs', '--', '-n=x'])).toEqual(['logs', '--', '-n=x']);
  });
});
