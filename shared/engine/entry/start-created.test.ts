import { describe, expect, it } from 'vitest';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { jobMaybeMissing } from './start-created.ts';

type Step = NonNullable<NonNullable<CascadeRun['status']>['modules']>[number];

function run(phase: string | undefined, step: Partial<Step> | undefined): CascadeRun {
  const module: Step = { step: 0, name: 'grayscale', jobName: 'j-0', phase: 'Running', ...step };
  return {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeRun',
    metadata: { name: 'r' },
    spec: { pid: 'i', scenarioname: 's', modules: ['grayscale'], turlinfo: 't', cascademodules: [] },
    status: phase === undefined ? {} : { phase, currentStep: 0, modules: step ? [module] : [] },
  } as unknown as CascadeRun;
}

describe('jobMaybeMissing', () => {
  it('is true for a running step whose Job no decision has recorded', () => {
    expect(jobMaybeMissing(run('Running', {}))).toBe(true);
  });

  it.each([
    ['no run', undefined],
    ['no phase', run(undefined, undefined)],
    ['its Job recorded', run('Running', { jobUid: 'u-1' })],
    ['a retry waiting for its backoff', run('Running', { retryAt: '2026-12-04T00:00:00Z' })],
    ['the step ended', run('Running', { phase: 'Succeeded' })],
    ['the run queued', run('Queued', {})],
    ['the run ended', run('Succeeded', {})],
    ['no record of the step', run('Running', undefined)],
  ])('is false with %s', (_what, r) => {
    expect(jobMaybeMissing(r)).toBe(false);
  });
});
