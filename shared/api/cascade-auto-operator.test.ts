import { describe, expect, it } from 'vitest';
import { parseCascadeAutoOperator, QUEUE_MAX } from './cascade-auto-operator.ts';
import { goCascadeAutoOperator } from './testing/fixtures.ts';

type Cao = Record<string, Record<string, unknown>>;
type Mutation = (cao: Cao) => unknown;

const status =
  (extra: Record<string, unknown>): Mutation =>
  (c) => ({ ...c, status: { ...c.status, ...extra } });
const spec =
  (extra: Record<string, unknown>): Mutation =>
  (c) => ({ ...c, spec: { ...c.spec, ...extra } });

describe('parseCascadeAutoOperator', () => {
  it.each<[string, Mutation]>([
    ['as the Go operator wrote it', (c) => c],
    ['before any run ended (result "")', status({ active: 0, succeeded: 0, failed: 0, result: '' })],
    ['without status', ({ status: _s, ...c }) => c],
    ['with its slots and queue', status({ result: 'Fail', holders: ['run-a', 'run-b/r1'], queue: ['run-c'] })],
  ])('accepts a CascadeAutoOperator %s', (_name, mutate) => {
    const result = parseCascadeAutoOperator(mutate(goCascadeAutoOperator() as Cao));
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.spec.scenarioconfig.cascademodules).toHaveLength(3);
  });

  it("takes the Go controller's replicas and template (declared, ignored) and drops fields it does not declare", () => {
    const result = parseCascadeAutoOperator(
      spec({ unknownField: 'x', maxConcurrentRuns: 5 })(goCascadeAutoOperator() as Cao),
    );
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.spec.replicas).toBe(1);
    expect(result.value.spec.maxConcurrentRuns).toBe(5);
    expect(result.value.spec).not.toHaveProperty('unknownField');
    expect(result.value.metadata.finalizers).toEqual(['shutdown.cascade.cascade.net/finalizer']);
  });

  it.each<[string, Mutation, string]>([
    ['no scenarioconfig', spec({ scenarioconfig: undefined }), 'spec.scenarioconfig: required'],
    ['an empty scenario', spec({ scenarioconfig: { cascademodules: [] } }), 'spec.scenarioconfig.cascademodules'],
    ['a negative counter', status({ active: -1 }), 'status.active'],
    ['a fractional counter', status({ failed: 0.5 }), 'status.failed: Invalid integer'],
    ['an unknown result', status({ result: 'OK' }), 'status.result'],
    ['a limit of 0', spec({ maxConcurrentRuns: 0 }), 'spec.maxConcurrentRuns'],
    ['a fractional limit', spec({ maxConcurrentRuns: 1.5 }), 'spec.maxConcurrentRuns'],
    [
      'too long a queue',
      status({ queue: Array.from({ length: QUEUE_MAX + 1 }, (_, i) => `k${i}`) }),
      'status.queue: Invalid length',
    ],
  ])('rejects a CascadeAutoOperator with %s', (_name, mutate, reason) => {
    const result = parseCascadeAutoOperator(mutate(goCascadeAutoOperator() as Cao));
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });
});
