// The `Succeeded` condition of a CascadeRun (Kubernetes API conventions), so
// `kubectl wait --for=condition=Succeeded` works. Pure.
import {
  CONDITION_SUCCEEDED,
  type CascadeRunStatus,
  type Condition,
  type ConditionReason,
} from '../api/cascade-run.ts';

export interface SucceededCondition {
  status: Condition['status'];
  reason: ConditionReason;
  message: string;
}

export function setSucceeded(status: CascadeRunStatus, c: SucceededCondition, now: string): void {
  const conditions = status.conditions ?? [];
  const old = conditions.find((x) => x.type === CONDITION_SUCCEEDED);
  const next: Condition = {
    type: CONDITION_SUCCEEDED,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now,
    ...(status.observedGeneration === undefined ? {} : { observedGeneration: status.observedGeneration }),
  };
  status.conditions = [...conditions.filter((c) => c.type !== CONDITION_SUCCEEDED), next];
}
