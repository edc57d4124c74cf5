// The numeric defaults docs/contract.md states in its Configuration table are
// the code's, read black-box: setting a variable to the default the table
// states changes nothing parseConfig gives, and setting it to another value
// changes something, so the variable is read at all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.ts';

const root = join(import.meta.dirname, '..');
const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');
/** Not in a pod: no ServiceAccount namespace file. */
const noPod = { namespaceFile: join(root, 'no-such-namespace-file') };

/** The rows of the Configuration table: variables of the first cell, default cell. */
function configurationRows(): { names: string[]; defaults: string }[] {
  const section = contract.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names, defaults] = line.split('|').slice(1, 3);
      return { names: [...names!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!), defaults: defaults!.trim() };
    });
}

/** Each variable whose stated default is a number (or one number per variable, `100, 200`), with that number. */
const numeric = configurationRows().flatMap(({ names, defaults }) => {
  const numbers = /^\d+(, \d+)*( |$)/.test(defaults) ? defaults.split(' (')[0]!.split(', ').map(Number) : [];
  return numbers.length === names.length ? names.map((name, i) => [name, numbers[i]!] as const) : [];
});

describe("docs/contract.md's Configuration table", () => {
  it('states a numeric default for the bounded-state variables, among others', () => {
    expect(Object.fromEntries(numeric)).toMatchObject({
      CASCADE_STALL_AFTER_SECONDS: 3600,
      CASCADE_RUN_TIMEOUT_SECONDS: 86_400,
      CASCADE_RETENTION_SECONDS: 604_800,
      CASCADE_LIST_PAGE_SIZE: 500,
    });
  });

  it.each(numeric)('%s: the stated default %d is the code’s', (name, value) => {
    const unset = parseConfig({}, noPod);
    expect(unset.ok).toBe(true);
    expect(parseConfig({ [name]: String(value) }, noPod)).toEqual(unset);
    expect(parseConfig({ [name]: String(value + 1) }, noPod)).not.toEqual(unset);
  });
});
