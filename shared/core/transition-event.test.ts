import { describe, expect, it } from 'vitest';
import { eventOfDecision } from './transition-event.ts';
import type { Transition } from './types.ts';

const started = (step: number, module: string): Transition => ({
  kind: 'ModuleStarted',
  step,
  module,
  message: `started Job run-${module}`,
});
const succeeded = (step: number, module: string): Transition => ({
  kind: 'ModuleSucceeded',
  step,
  module,
  message: `module ${module} succeeded`,
  durationSeconds: 1,
});

describe('one Kubernetes Event per decision', () => {
  it('a decision without transitions writes no Event', () => {
    expect(eventOfDecision([])).toBeUndefined();
  });

  it('the run start: the first module started', () => {
    expect(eventOfDecision([started(0, 'a')])).toEqual({
      type: 'Normal',
      reason: 'ModuleStarted',
      message: 'started Job run-a',
    });
  });

  it('a hand-off is one Event named for the module started, telling both transitions in order', () => {
    expect(eventOfDecision([succeeded(0, 'a'), started(1, 'b')])).toEqual({
      type: 'Normal',
      reason: 'ModuleStarted',
      message: 'module a succeeded; started Job run-b',
    });
  });

  it('the end: the last module and the run in one Event', () => {
    const note = eventOfDecision([succeeded(2, 'c'), { kind: 'RunSucceeded', message: 'run succeeded' }]);
    expect(note).toEqual({ type: 'Normal', reason: 'RunSucceeded', message: 'module c succeeded; run succeeded' });
  });

  it('a failure is a Warning naming the module, whatever the last transition', () => {
    const note = eventOfDecision([
      {
        kind: 'ModuleFailed',
        step: 1,
        module: 'b',
        reason: 'JobFailed',
        message: 'Job has reached the specified backoff limit',
      },
      { kind: 'RunFailed', reason: 'JobFailed', message: 'module b failed' },
    ]);
    expect(note).toEqual({
      type: 'Warning',
      reason: 'RunFailed',
      message: 'module b (step 2): Job has reached the specified backoff limit; module b failed',
    });
    const retried = eventOfDecision([
      { kind: 'ModuleFailed', step: 0, module: 'a', reason: 'JobFailed', message: 'failed' },
      { kind: 'ModuleRetrying', step: 0, module: 'a', message: 'retry 1 of 2 in 10 s' },
    ]);
    expect(retried).toMatchObject({ type: 'Warning', reason: 'ModuleRetrying' });
  });

  it('a resume that starts its module again is RunResumed', () => {
    const note = eventOfDecision([
      { kind: 'RunResumed', step: 1, module: 'b', message: 'resumed at module b' },
      started(1, 'b'),
    ]);
    expect(note).toEqual({ type: 'Normal', reason: 'RunResumed', message: 'resumed at module b; started Job run-b' });
  });

  it('a cancel names the cancelled module and ends as RunCancelled, Normal', () => {
    const note = eventOfDecision([
      { kind: 'ModuleCancelled', step: 0, module: 'a', reason: 'Cancelled', message: 'Job deleted' },
      { kind: 'RunCancelled', reason: 'Cancelled', message: 'run cancelled' },
    ]);
    expect(note).toEqual({
      type: 'Normal',
      reason: 'RunCancelled',
      message: 'module a (step 1): Job deleted; run cancelled',
    });
  });
});
