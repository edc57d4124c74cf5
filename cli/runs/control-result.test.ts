import { describe, expect, it } from 'vitest';
import { annotationPatch, controlResult, handledValue, requestValue } from './control-result.ts';
import type { RunObject } from './run-object.ts';

const run = (phase: string, resumes?: number): RunObject => ({
  metadata: { name: 'r' },
  status: { phase, ...(resumes ? { resumes } : {}) },
});

describe('what a cancel did', () => {
  it('cancelled when the run ends Cancelled; nothing when it had ended or ended otherwise; pending while it runs', () => {
    expect(controlResult('cancel', 'r', run('Running'), run('Cancelled'))).toEqual({
      state: 'done',
      message: 'cascaderun/r cancelled',
    });
    expect(controlResult('cancel', 'r', run('Succeeded'), run('Succeeded'))).toEqual({
      state: 'nothing',
      message: 'cascaderun/r had already ended Succeeded: nothing to cancel',
    });
    expect(controlResult('cancel', 'r', run('Cancelled'), run('Cancelled'))).toMatchObject({ state: 'nothing' });
    expect(controlResult('cancel', 'r', run('Running'), run('Failed'))).toEqual({
      state: 'nothing',
      message: 'cascaderun/r ended Failed before the cancel: nothing to cancel',
    });
    expect(controlResult('cancel', 'r', run('Queued'), run('Queued'))).toEqual({ state: 'pending' });
  });
});

describe('what a resume did', () => {
  it('resumed when the run counts one more resume; nothing for a run that is not Failed or Cancelled', () => {
    expect(controlResult('resume', 'r', run('Failed'), run('Running', 1))).toEqual({
      state: 'done',
      message: 'cascaderun/r resumed (phase Running)',
    });
    expect(controlResult('resume', 'r', run('Running'), run('Running'))).toEqual({
      state: 'nothing',
      message: 'cascaderun/r is Running: only a Failed or Cancelled run can be resumed',
    });
    expect(controlResult('resume', 'r', run('Succeeded'), run('Succeeded'))).toMatchObject({ state: 'nothing' });
    expect(controlResult('resume', 'r', run('Cancelled', 1), run('Cancelled', 1))).toEqual({ state: 'pending' });
  });
});

describe('a request through the API server', () => {
  it('is the annotation kubectl annotate sets, with a value no earlier request used', () => {
    const key = 'cascade.cascade.net/cancel-requested-at';
    expect(annotationPatch({ metadata: { annotations: { a: 'b' } } }, key, 'v')).toEqual([
      { op: 'add', path: '/metadata/annotations/cascade.cascade.net~1cancel-requested-at', value: 'v' },
    ]);
    expect(annotationPatch({ metadata: {} }, key, 'v')).toEqual([
      { op: 'add', path: '/metadata/annotations', value: { [key]: 'v' } },
    ]);
    const now = Date.parse('2026-12-01T10:00:00.000Z');
    expect(requestValue(now, undefined)).toBe('2026-12-01T10:00:00.000Z');
    expect(requestValue(now, '2026-12-01T10:00:00.000Z')).toBe('2026-12-01T10:00:00.001Z');
  });

  it('is handled once the run records its value', () => {
    expect(handledValue('cancel', { metadata: {}, status: { lastHandledCancel: 'v', lastHandledResume: 'w' } })).toBe(
      'v',
    );
    expect(handledValue('resume', { metadata: {}, status: { lastHandledCancel: 'v', lastHandledResume: 'w' } })).toBe(
      'w',
    );
  });
});
