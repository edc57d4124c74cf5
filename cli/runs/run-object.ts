// What the CLI reads of a CascadeRun. Deliberately looser than
// shared/api/cascade-run.ts: phases and fields the API gains later (Queued,
// Cancelled, attempts) are shown as they come rather than refused.

export interface ModuleRecordView {
  step: number;
  name: string;
  jobName: string;
  phase: string;
  startTime?: string;
  completionTime?: string;
  result?: string;
  reason?: string;
  message?: string;
  attempt?: number;
  attempts?: AttemptView[];
  trigger?: string;
  retryAt?: string;
}

/** An earlier attempt of a step, as the run's status keeps it. */
export interface AttemptView {
  attempt: number;
  jobName: string;
  phase: string;
  startTime?: string;
  completionTime?: string;
  result?: string;
  reason?: string;
  message?: string;
  trigger?: string;
}

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface RunObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    creationTimestamp?: string | Date;
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: { pid?: string; scenarioname?: string; modules?: string[]; turlinfo?: string };
  status?: {
    phase?: string;
    currentStep?: number;
    currentModule?: string;
    startTime?: string;
    completionTime?: string;
    conditions?: ConditionView[];
    modules?: ModuleRecordView[];
    info?: string;
    resumes?: number;
    lastHandledCancel?: string;
    lastHandledResume?: string;
    notified?: boolean;
  };
}

/** The phases a run never leaves. */
export const FINAL_PHASES: readonly string[] = ['Succeeded', 'Failed', 'Cancelled'];

export function isFinal(run: RunObject): boolean {
  return FINAL_PHASES.includes(run.status?.phase ?? '');
}

/** The phase shown: Pending until the function has written one. */
export function phaseOf(run: RunObject): string {
  return run.status?.phase ?? 'Pending';
}

export function createdAt(run: RunObject): number {
  const t = run.metadata.creationTimestamp;
  return t === undefined ? 0 : new Date(t).getTime();
}

/**
 * Whether the step was ever started. The function lists every step in
 * status.modules from the start: one never reached is Pending, without a
 * start time or an earlier attempt, and its Job does not exist yet.
 */
export function wasReached(record: ModuleRecordView | undefined): boolean {
  if (!record) return false;
  return (
    Boolean(record.startTime) ||
    record.phase !== 'Pending' ||
    (record.attempts?.length ?? 0) > 0 ||
    (record.attempt ?? 1) > 1
  );
}

/** The state shown for a step: `Waiting` until it is reached, then its record's phase. */
export function stepState(record: ModuleRecordView | undefined): string {
  return wasReached(record) ? record!.phase : 'Waiting';
}
