import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../api/cascade-run.ts';
import { keySettled, pinCandidates, pinSettled } from './pins.ts';

const run = (status: CascadeRun['status']): CascadeRun =>
  ({ metadata: { name: 'x', namespace: 'ns', uid: 'u' }, spec: {}, status }) as unknown as CascadeRun;

describe('pinCandidates', () => {
  it('reads `end:<run>` as the run before any resume', () => {
    expect(pinCandidates('end:a-b')).toEqual([{ run: 'a-b', resumes: 0 }]);
  });
  it('reads `end:<run>-r<N>` both ways: a run so named, or the run after N resumes', () => {
    expect(pinCandidates('end:a-r2')).toEqual([
      { run: 'a-r2', resumes: 0 },
      { run: 'a', resumes: 2 },
    ]);
  });
  it('reads no other key', () => {
    expect(pinCandidates('start:a')).toEqual([]);
  });
});

describe('pinSettled', () => {
  const c = { run: 'x', resumes: 1 };
  it.each([
    ['gone', undefined, true],
    ['marked, same outcome', run({ resumes: 1, counted: true }), true],
    ['resumed since', run({ resumes: 2 }), true],
    ['not marked yet', run({ resumes: 1 }), false],
    ['marked, yet an earlier outcome', run({ resumes: 0, counted: true }), false],
  ])('%s: %s', (_name, r, expected) => {
    expect(pinSettled(c, r)).toBe(expected);
  });
});

describe('keySettled', () => {
  it('needs every reading settled, and at least one', () => {
    const gone = { candidate: { run: 'a-r2', resumes: 0 }, run: undefined };
    const open = { candidate: { run: 'a', resumes: 2 }, run: run({ resumes: 2 }) };
    expect(keySettled([gone, open])).toBe(false);
    expect(keySettled([gone])).toBe(true);
    expect(keySettled([])).toBe(false);
  });
});
