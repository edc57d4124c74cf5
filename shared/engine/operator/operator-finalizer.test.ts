import { describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRunStatus } from '../../api/cascade-run.ts';
import { FINALIZER } from '../../api/group.ts';
import { run } from '../../core/testing/fixtures.ts';
import { isHeld, needsOperator, operatorGate, withFinalizer, withoutFinalizer } from './operator-finalizer.ts';

function operator(finalizers: string[] | undefined, deleting = false): CascadeAutoOperator {
  return {
    apiVersion: 'cascade.cascade.net/v1alpha1',
    kind: 'CascadeAutoOperator',
    metadata: {
      name: 'cao',
      namespace: 'ns',
      ...(finalizers ? { finalizers } : {}),
      ...(deleting ? { deletionTimestamp: '2026-11-29T11:59:00Z' } : {}),
    },
    spec: { scenarioconfig: { cascademodules: [] } },
  };
}

describe('what a run request may do, from the operator it read', () => {
  it.each([
    ['no operator: the CONFIG_PATH file, nothing to hold', undefined, { kind: 'absent' }],
    ['held: start, no write', operator([FINALIZER]), { kind: 'held', op: operator([FINALIZER]) }],
    [
      'never held: add the finalizer first',
      operator(undefined),
      { kind: 'hold', op: operator(undefined), finalizers: [FINALIZER] },
    ],
    [
      'another finalizer kept beside ours',
      operator(['other/x']),
      { kind: 'hold', op: operator(['other/x']), finalizers: ['other/x', FINALIZER] },
    ],
    [
      'being deleted, held: no new runs',
      operator([FINALIZER], true),
      { kind: 'deleting', reason: 'CascadeAutoOperator cao is being deleted: no new runs' },
    ],
    [
      'being deleted, not held: no new runs either',
      operator(['other/x'], true),
      { kind: 'deleting', reason: 'CascadeAutoOperator cao is being deleted: no new runs' },
    ],
  ])('%s', (_n, op, expected) => {
    expect(operatorGate(op)).toEqual(expected);
  });
});

describe('the finalizer list', () => {
  it('is held only with our finalizer', () => {
    expect([
      isHeld(undefined),
      isHeld(operator(undefined)),
      isHeld(operator(['other/x'])),
      isHeld(operator(['other/x', FINALIZER])),
    ]).toEqual([false, false, false, true]);
  });

  it('adds ours once and removes only ours, in order', () => {
    expect(withFinalizer(operator(['a', FINALIZER, 'b']))).toEqual(['a', FINALIZER, 'b']);
    expect(withFinalizer(operator(['a']))).toEqual(['a', FINALIZER]);
    expect(withoutFinalizer(operator(['a', FINALIZER, 'b']))).toEqual(['a', 'b']);
    expect(withoutFinalizer(operator(undefined))).toEqual([]);
  });
});

describe('which runs still need their operator', () => {
  const deleting = (status?: CascadeRunStatus) => {
    const r = run(['a'], status);
    return { ...r, metadata: { ...r.metadata, deletionTimestamp: '2026-11-29T11:59:00Z' } };
  };
  it.each([
    ['created, never moved', run(['a']), true],
    ['running', run(['a'], { phase: 'Running' }), true],
    ['succeeded, slot not yet released', run(['a'], { phase: 'Succeeded' }), true],
    ['failed, slot not yet released', run(['a'], { phase: 'Failed', notified: false }), true],
    ['succeeded and notified', run(['a'], { phase: 'Succeeded', notified: true }), false],
    ['failed and notified', run(['a'], { phase: 'Failed', notified: true }), false],
    [
      'failed, its slot released, its run-end event still owed',
      run(['a'], { phase: 'Failed', slotReleased: true, notified: false }),
      false,
    ],
    ['being deleted while running', deleting({ phase: 'Running' }), false],
  ])('%s: %s', (_n, r, expected) => {
    expect(needsOperator(r)).toBe(expected);
  });
});
