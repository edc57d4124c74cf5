import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { runEndEventId, withMarks } from './finish-run.ts';

describe("the marks of a run's end", () => {
  it.each([
    ['counted, event owed', {}, { counted: true, notified: false }, { counted: true, notified: false }],
    ['counted, no event owed', {}, { counted: true, notified: true }, { counted: true, notified: true }],
    ['sent', { counted: true, notified: false }, { notified: true }, { counted: true, notified: true }],
    [
      'notified by another process meanwhile: not owed again',
      { counted: true, notified: true },
      { counted: true, notified: false },
      { counted: true, notified: true },
    ],
    [
      "an older version's notified run",
      { notified: true },
      { counted: true, notified: false },
      { counted: true, notified: true },
    ],
  ])('%s', (_what, status, marks, expected) => {
    expect(withMarks({ phase: 'Succeeded', ...status }, marks)).toEqual({ phase: 'Succeeded', ...expected });
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
