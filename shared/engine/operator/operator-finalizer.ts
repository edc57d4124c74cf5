// The CascadeAutoOperator's finalizer (shutdown.cascade.cascade.net/finalizer):
// it keeps the operator, and so its counters, until every run started under it
// has ended and released its slot. Pure: what the function and the janitor decide
// about it; hold-operator.ts and sweep.ts act. See docs/adr/0003-operator-finalizer.md.
import { isSlotReleased } from '../../core/run-end.ts';
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { isTerminalPhase, type CascadeRun } from '../../api/cascade-run.ts';
import { FINALIZER } from '../../api/group.ts';

export function isDeleting(obj: { metadata?: { deletionTimestamp?: string | Date | undefined } | undefined }): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

/** The operator carries the finalizer: it cannot vanish before the janitor lets it go. */
export function isHeld(op: CascadeAutoOperator | undefined): boolean {
  return op?.metadata.finalizers?.includes(FINALIZER) ?? false;
}

/** The operator's finalizers with Cascade's added (kept in place when already there). */
export function withFinalizer(op: CascadeAutoOperator): string[] {
  const finalizers = op.metadata.finalizers ?? [];
  return finalizers.includes(FINALIZER) ? finalizers : [...finalizers, FINALIZER];
}

export function withoutFinalizer(op: CascadeAutoOperator): string[] {
  return (op.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
}

/** What a run request may do, given the operator just read. */
export type OperatorGate =
  /** No operator: the scenario comes from the CONFIG_PATH file, nothing to hold. */
  | { kind: 'absent' }
  /** Being deleted: no new runs (503, retry). */
  | { kind: 'deleting'; reason: string }
  /** Held already: start the run (the usual case, no write). */
  | { kind: 'held'; op: CascadeAutoOperator }
  /** Not held yet: add the finalizer first (once per operator). */
  | { kind: 'hold'; op: CascadeAutoOperator; finalizers: string[] };

export function operatorGate(op: CascadeAutoOperator | undefined): OperatorGate {
  if (!op) return { kind: 'absent' };
  if (isDeleting(op))
    return { kind: 'deleting', reason: `CascadeAutoOperator ${op.metadata.name} is being deleted: no new runs` };
  if (isHeld(op)) return { kind: 'held', op };
  return { kind: 'hold', op, finalizers: withFinalizer(op) };
}

/**
 * A run that still needs its operator: in progress, or ended with its end not
 * yet recorded (`status.slotReleased`, written once its slot is released; an
 * owed run-end event needs no operator). A run being deleted holds nothing.
 */
export function needsOperator(run: CascadeRun): boolean {
  if (isDeleting(run)) return false;
  return !isTerminalPhase(run.status?.phase) || !isSlotReleased(run.status);
}
