import { describe, expect, it } from 'vitest';
import { COUNTED_RUNS_MAX, parseCascadeAutoOperator } from './cascade-auto-operator.ts';
import { goCascadeAutoOperator } from './testing/fixtures.ts';

type Cao = Record<string, Record<string, unknown>>;
type Mutation = (cao: Cao) => unknown;

const status = (extra: Record<string, unknown>): Mutation => (c) => ({ ...c, status: { ...c.status, ...extra } });
const spec = (extra: Record<string, unknown>): Mutation => (c) => ({ ...c, spec: { ...c.spec, ...extra } });

describe('parseCascadeAutoOperator', () => {
  it.each<[string, Mutation]>([
    ['as the Go operator wrote it', (c) => c],
    ['before any run ended (result "")', status({ active: 0, succeeded: 0, failed: 0, result: '' })],
    ['without status', ({ status: _s, ...c }) => c],
    ['with Cascade dedupe keys', status({ result: 'Fail', countedRuns: ['run-a/end', 'run-b/end'] })],
  ])('accepts a CascadeAutoOperator %s', (_name, mutate) => {
    const result = parseCascadeAutoOperator(mutate(goCascadeAutoOperator() as Cao));
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.spec.scenarioconfig.cascademodules).toHaveLength(3);
  });

  it('keeps the spec fields it does not describe', () => {
    const result = parseCascadeAutoOperator(goCascadeAutoOperator());
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.spec['replicas']).toBe(1);
    expect(result.value.metadata.finalizers).toEqual(['shutdown.cascade.cascade.net/finalizer']);
  });

  it.each<[string, Mutation, string]>([
    ['no scenarioconfig', spec({ scenarioconfig: undefined }), 'spec.scenarioconfig: required'],
    ['an empty scenario', spec({ scenarioconfig: { cascademodules: [] } }), 'spec.scenarioconfig.cascademodules'],
    ['a negative counter', status({ active: -1 }), 'status.active'],
    ['a fractional counter', status({ failed: 0.5 }), 'status.failed: Invalid integer'],
    ['an unknown result', status({ result: 'OK' }), 'status.result'],
    ['too many dedupe keys', status({ countedRuns: Array.from({ length: COUNTED_RUNS_MAX + 1 }, (_, i) => `k${i}`) }),
      'status.countedRuns: Invalid length'],
  ])('rejects a CascadeAutoOperator with %s', (_name, mutate, reason) => {
    const result = parseCascadeAutoOperator(mutate(goCascadeAutoOperator() as Cao));
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });
});
