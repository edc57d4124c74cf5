import { describe, expect, it } from 'vitest';
import { isDnsLabel, jobName, runName, toDnsLabel, toLabelValue } from './names.ts';

describe('run names', () => {
  it.each([
    ['the Go controller name', 'cao', '33e65374-ee8e', false, { ok: true, name: 'cao-33e65' }],
    ['an iuid shorter than 5 characters', 'cao', 'ab', false, { ok: true, name: 'cao-ab' }],
    ['upper case is lowered', 'cao', 'ABCDEF', false, { ok: true, name: 'cao-abcde' }],
  ])('%s', (_n, scenario, iuid, collided, expected) => {
    expect(runName(scenario, iuid, collided)).toEqual(expected);
  });

  it('a colliding iuid gets a suffix from its own hash, different per iuid', () => {
    const a = runName('cao', '33e65-one', true);
    const b = runName('cao', '33e65-two', true);
    expect(a.ok && b.ok && a.name !== b.name && a.name.startsWith('cao-33e65-')).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['a_b', 'underscore'],
    ['-abc', 'leading dash'],
    ['ab/cd', 'slash'],
  ])('rejects iuid %j (%s)', (iuid) => {
    const r = runName('cao', iuid);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/iuid/);
  });

  it('rejects a scenario name too long for a label', () => {
    expect(runName('x'.repeat(60), 'abcdef').ok).toBe(false);
  });
});

describe('label-safe names', () => {
  it.each(['Mixed_Case', 'a'.repeat(80), 'ends-', 'ünïcode'])('%j becomes a valid unique label', (text) => {
    const label = toDnsLabel(text);
    expect(isDnsLabel(label)).toBe(true);
    expect(toDnsLabel(`${text}2`)).not.toBe(label);
  });

  it('keeps a valid label value as it is', () => {
    expect(toLabelValue('Grayscale_1.a')).toBe('Grayscale_1.a');
  });

  it('job names fit in 63 characters', () => {
    expect(jobName('s'.repeat(40), `${'s'.repeat(40)}-abcde`, ['m'.repeat(40)], 0).length).toBeLessThanOrEqual(63);
  });
});
