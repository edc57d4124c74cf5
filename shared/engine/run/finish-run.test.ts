import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { runEndEventId, withMarks } from './finish-run.ts';

const RELEASED = { slotReleased: true, counted: true };

describe("the marks of a run's end", () => {
  it.each([
    ['released, event owed', {}, { slotReleased: true, notified: false }, { ...RELEASED, notified: false }],
    ['released, no event owed', {}, { slotReleased: true, notified: true }, { ...RELEASED, notified: true }],
    ['sent', { ...RELEASED, notified: false }, { notified: true }, { ...RELEASED, notified: true }],
    [
      'notified by another process meanwhile: not owed again',
      { ...RELEASED, notified: true },
      { slotReleased: true, notified: false },
      { ...RELEASED, notified: true },
    ],
    [
      "an older version's notified run",
      { notified: true },
      { slotReleased: true, notified: false },
      { ...RELEASED, notified: true },
    ],
    [
      'released by an older replica, under the old name only: written under both',
      { counted: true, notified: false },
      { notified: true },
      { ...RELEASED, notified: true },
    ],
  ])('%s', (_what, status, marks, expected) => {
    expect(withMarks({ phase: 'Succeeded', ...status }, marks)).toEqual({ phase: 'Succeeded', ...expected });
  });

  it.each([
    ['a resume given its slot', { resumes: 1 }, 1, { resumes: 1, resumeSlotTaken: 1, resumeCounted: 1 }],
    [
      'an older replica gave resume 2 its slot: the old name is read first',
      { resumes: 2, resumeSlotTaken: 1, resumeCounted: 2 },
      1,
      { resumes: 2, resumeSlotTaken: 2, resumeCounted: 2 },
    ],
  ])('%s', (_what, status, resume, expected) => {
    expect(withMarks(status, { resumeSlotTaken: resume })).toEqual(expected);
  });
});

describe('run-end event ids', () => {
  const at = (resumes?: number): CascadeRun => ({
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeRun',
    metadata: { name: 'r', namespace: 'n', uid: 'u1' },
    spec: { pid: 'i', scenarioname: 's', modules: [] },
    status: resumes === undefined ? {} : { resumes },
  });
  it.each([
    [undefined, 'Failed', 'u1-failed'],
    [0, 'Succeeded', 'u1-succeeded'],
    [1, 'Failed', 'u1-failed-r1'],
    [2, 'Succeeded', 'u1-succeeded-r2'],
  ] as const)('after %s resumes, %s: %s', (resumes, phase, id) => {
    expect(runEndEventId(at(resumes), phase)).toBe(id);
  });
});
