// The `Succeeded` condition of a CascadeRun (Kubernetes API conventions), so
// `kubectl wait --for=condition=Succeeded` works. Pure.
import type { CascadeRunStatus, Condition, ConditionReason } from '../api/cascade-run.ts';

export const SUCCEEDED = 'Succeeded';

export function setSucceeded(
  status: CascadeRunStatus,
  value: Condition['status'],
  reason: ConditionReason,
  message: string,
  now: string,
): void {
  const conditions = status.conditions ?? [];
  const old = conditions.find((c) => c.type === SUCCEEDED);
  const next: Condition = {
    type: SUCCEEDED,
    status: value,
    reason,
    message,
    lastTransitionTime: old && old.status === value ? old.lastTransitionTime : now,
    ...(status.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
  };
  status.conditions = [...conditions.filter((c) => c.type !== SUCCEEDED), next];
}
