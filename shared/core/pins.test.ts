import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../api/cascade-run.ts';
import { markedKey } from './counters.ts';
import { keySettled, markOf, pinCandidates, pinSettled } from './pins.ts';

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
  it('reads `start:<run>` as its start, `resume:<run>-r<N>` as its N-th resume, whatever the name', () => {
    expect(pinCandidates('start:a-r2')).toEqual([{ run: 'a-r2', resumes: 0, of: 'start' }]);
    expect(pinCandidates('resume:a-r2-r3')).toEqual([{ run: 'a-r2', resumes: 3, of: 'resume' }]);
  });
  it('reads no other key', () => {
    expect(pinCandidates('other:a')).toEqual([]);
    expect(pinCandidates('resume:a')).toEqual([]);
  });
  it("gives back each key's own mark", () => {
    for (const key of ['start:a-r2', 'resume:a-r2-r3', 'end:a-r2', 'end:a']) {
      const mark = markOf(key, pinCandidates(key));
      expect(mark && markedKey(mark), key).toBe(key);
    }
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

describe('pinSettled: starts and resumes', () => {
  const start = { run: 'x', resumes: 0, of: 'start' } as const;
  const resume = { run: 'x', resumes: 1, of: 'resume' } as const;
  it.each([
    ['a start, the run with no phase', start, run(undefined), false],
    ['a start, the run queued', start, run({ phase: 'Queued' }), true],
    ['a start, the run gone', start, undefined, true],
    ['a resume, not recorded counted', resume, run({ phase: 'Running', resumes: 1 }), false],
    ['a resume, recorded counted', resume, run({ phase: 'Running', resumes: 1, resumeCounted: 1 }), true],
    ['a resume, the run made anew', resume, run({ phase: 'Running' }), true],
    ['a resume, the run gone', resume, undefined, true],
  ] as const)('%s', (_name, candidate, r, expected) => {
    expect(pinSettled(candidate, r)).toBe(expected);
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
