import * as v from 'valibot';
import { NonEmptyStringSchema, NonNegativeIntSchema, openapi, TimestampSchema } from './primitives.ts';

/** Phase of a whole run. */
export const RUN_PHASES = ['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** Phase of one module (one Job) of a run. */
export const MODULE_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'] as const;
export type ModulePhase = (typeof MODULE_PHASES)[number];

/** The phases a run or a module never leaves. */
export const TERMINAL_PHASES = ['Succeeded', 'Failed', 'Cancelled'] as const;
export type TerminalPhase = (typeof TERMINAL_PHASES)[number];

export function isTerminalPhase(phase: RunPhase | ModulePhase | undefined): phase is TerminalPhase {
  return (TERMINAL_PHASES as readonly string[]).includes(phase ?? '');
}

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** The condition `kubectl wait --for=condition=Succeeded` waits for. */
export const CONDITION_SUCCEEDED = 'Succeeded';

/**
 * Reasons of the `Succeeded` condition (closed vocabulary, also usable as a
 * metric label): Unknown while Pending/Running, True when Succeeded, False
 * with the cause of failure otherwise (`Cancelled` for a cancelled run).
 */
export const CONDITION_REASONS = [
  'Queued',
  'Pending',
  'Running',
  'Succeeded',
  'ModuleFailed',
  'ModuleResultFailed',
  'JobCreationFailed',
  'JobMissing',
  'DeadlineExceeded',
  'Stalled',
  'InvalidSpec',
  'Retrying',
  'Cancelled',
] as const;
export type ConditionReason = (typeof CONDITION_REASONS)[number];

/** A status condition as in the Kubernetes API conventions (metav1.Condition). */
export const ConditionSchema = v.object({
  type: v.pipe(NonEmptyStringSchema, v.description('Condition type, e.g. Succeeded.')),
  status: v.picklist(CONDITION_STATUSES),
  reason: v.picklist(CONDITION_REASONS),
  message: v.string(),
  lastTransitionTime: TimestampSchema,
  observedGeneration: v.optional(NonNegativeIntSchema),
});
export type Condition = v.InferOutput<typeof ConditionSchema>;

/** What started an attempt of a step: the run's progress, a retry after a failure, a resume request. */
export const ATTEMPT_TRIGGERS = ['Initial', 'Retry', 'Resume'] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

/** An earlier attempt of a step (one Job), as it ended. */
export const AttemptRecordSchema = v.object({
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  jobName: NonEmptyStringSchema,
  phase: v.picklist(MODULE_PHASES),
  startTime: v.optional(TimestampSchema),
  completionTime: v.optional(TimestampSchema),
  result: v.optional(v.string()),
  reason: v.optional(v.string()),
  message: v.optional(v.string()),
  trigger: v.picklist(ATTEMPT_TRIGGERS),
});
export type AttemptRecord = v.InferOutput<typeof AttemptRecordSchema>;

/** Most resume request ids kept in `status.resumeRequests`; the oldest go first. */
export const RESUME_REQUESTS_MAX = 32;

/** What happened to one module of a run. */
export const ModuleRecordSchema = v.object({
  step: v.pipe(NonNegativeIntSchema, v.description('Index of the module in spec.cascademodules.')),
  name: NonEmptyStringSchema,
  jobName: NonEmptyStringSchema,
  jobUid: v.optional(
    v.pipe(
      NonEmptyStringSchema,
      v.description('The uid of the Job Cascade created for the current attempt: only that Job moves the step.'),
    ),
  ),
  phase: v.picklist(MODULE_PHASES),
  startTime: v.optional(TimestampSchema),
  completionTime: v.optional(TimestampSchema),
  result: v.optional(v.pipe(v.string(), v.description('The moduleresult the module reported.'))),
  reason: v.optional(v.string()),
  message: v.optional(v.string()),
  attempt: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Current attempt, 1-based (absent: 1).')),
  ),
  trigger: v.optional(
    v.pipe(v.picklist(ATTEMPT_TRIGGERS), v.description('What started the current attempt (absent: Initial).')),
  ),
  attempts: v.optional(
    v.pipe(v.array(AttemptRecordSchema), v.description('Earlier attempts of this step, oldest first.')),
  ),
  retryAt: v.optional(
    v.pipe(TimestampSchema, v.description('While a retry waits for its backoff: when its Job is due.')),
  ),
});
export type ModuleRecord = v.InferOutput<typeof ModuleRecordSchema>;

export const CascadeRunStatusSchema = v.object({
  // The Go controller's fields, kept for its readers.
  info: v.optional(
    v.pipe(
      v.string(),
      v.description('Go controller: final archive URL on success, "Failed" on failure ("Cancelled" when cancelled).'),
    ),
  ),
  result: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description('Go controller: one "<modulename>: <moduleresult>\\n" per module result.'),
    ),
  ),
  // Cascade's fields.
  phase: v.optional(v.pipe(v.picklist(RUN_PHASES), v.description('Phase of the run.'))),
  observedGeneration: v.optional(
    v.pipe(NonNegativeIntSchema, v.description('metadata.generation this status was computed from.')),
  ),
  conditions: v.optional(
    v.pipe(
      v.array(ConditionSchema),
      v.description('Conditions of the run; type Succeeded is Unknown while it runs, then True or False.'),
      openapi({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
    ),
  ),
  currentStep: v.optional(v.pipe(NonNegativeIntSchema, v.description('Index of the current (or last) module.'))),
  currentModule: v.optional(v.pipe(v.string(), v.description('Name of the current (or last) module.'))),
  startTime: v.optional(v.pipe(TimestampSchema, v.description('When the first module started.'))),
  completionTime: v.optional(v.pipe(TimestampSchema, v.description('When the run ended.'))),
  modules: v.optional(v.pipe(v.array(ModuleRecordSchema), v.description('One record per module started, in order.'))),
  slotReleased: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "The run's ended attempt has released its concurrency slot on the CascadeAutoOperator, or it held none; unset or false while that is owed.",
      ),
    ),
  ),
  counted: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Deprecated: the old name of slotReleased, written beside it and read first until v1beta1 (docs/adr/0006-status-field-names.md).',
      ),
    ),
  ),
  lastHandledCancel: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'The value of the annotation cascade.cascade.net/cancel-requested-at this run handled last: a cancel is pending while the annotation differs.',
      ),
    ),
  ),
  notified: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'The run-end CloudEvent has been sent to K_SINK (or none is owed: no K_SINK when the run ended); false while it is owed.',
      ),
    ),
  ),
  resumes: v.optional(v.pipe(NonNegativeIntSchema, v.description('Times the run was resumed.'))),
  resumedFrom: v.optional(
    v.pipe(v.picklist(RUN_PHASES), v.description('Phase the run was in when it was last resumed.')),
  ),
  resumedAt: v.optional(
    v.pipe(
      TimestampSchema,
      v.description('When the run was last resumed: its deadline and stall times count from it.'),
    ),
  ),
  resumeSlotTaken: v.optional(
    v.pipe(
      NonNegativeIntSchema,
      v.description(
        'The last resume that has taken its concurrency slot, <name>/r<N>, on the CascadeAutoOperator, or needed none; a resume is owed its slot while resumes is greater.',
      ),
    ),
  ),
  resumeCounted: v.optional(
    v.pipe(
      NonNegativeIntSchema,
      v.description(
        'Deprecated: the old name of resumeSlotTaken, written beside it and read first until v1beta1 (docs/adr/0006-status-field-names.md).',
      ),
    ),
  ),
  resumeRequests: v.optional(
    v.pipe(
      v.array(v.string()),
      v.maxLength(RESUME_REQUESTS_MAX),
      v.description('Ids of the resume requests applied, oldest first (a redelivery is a duplicate).'),
    ),
  ),
  lastHandledResume: v.optional(
    v.pipe(v.string(), v.description('Value of the resume-requested-at annotation handled last.')),
  ),
});
export type CascadeRunStatus = v.InferOutput<typeof CascadeRunStatusSchema>;
