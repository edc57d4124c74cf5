import * as v from 'valibot';
import { parseWith, type ParseResult } from './parse.ts';
import { NonEmptyStringSchema, NonNegativeIntSchema, StringMapSchema } from './primitives.ts';

/**
 * A scenario: the ordered modules of a cascade, as in the Go controller's
 * scenario file (`{"cascademodules": [...]}`) and in a CascadeAutoOperator's
 * `spec.scenarioconfig`.
 */

const ContainerSchema = v.looseObject({ name: NonEmptyStringSchema });

/** A Kubernetes PodTemplateSpec: only `spec.containers[].name` is checked, every other field is kept. */
export const PodTemplateSpecSchema = v.pipe(
  v.looseObject({
    metadata: v.optional(v.looseObject({})),
    spec: v.looseObject({
      containers: v.pipe(v.array(ContainerSchema), v.minLength(1)),
    }),
  }),
  v.description('Kubernetes PodTemplateSpec of the module Job; the first container receives the module environment.'),
);
export type PodTemplateSpec = v.InferOutput<typeof PodTemplateSpecSchema>;

/**
 * Cascade's retries of a failed step: each retry is a new Job (attempt n+1)
 * after `backoffSeconds * 2^(n-1)`, at most `maxBackoffSeconds`.
 */
export const RetryPolicySchema = v.pipe(
  v.object({
    limit: v.pipe(NonNegativeIntSchema, v.maxValue(100), v.description('Retries after the first attempt (0: none).')),
    backoffSeconds: v.optional(
      v.pipe(
        NonNegativeIntSchema,
        v.description('Wait before the first retry (default 10); doubled for each later one.'),
      ),
    ),
    maxBackoffSeconds: v.optional(
      v.pipe(NonNegativeIntSchema, v.description('Longest wait between two attempts (default 3600).')),
    ),
  }),
  v.description('Retries of a failed step as new Jobs, with exponential backoff.'),
);
export type RetryPolicy = v.InferOutput<typeof RetryPolicySchema>;

export const CascadeModuleSchema = v.object({
  modulename: v.pipe(NonEmptyStringSchema, v.description('Module name; part of the Job name.')),
  configuration: v.optional(
    v.pipe(StringMapSchema, v.description('Environment variables set on the first container.')),
  ),
  activeDeadlineSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  backoffLimit: v.optional(NonNegativeIntSchema),
  ttlSecondsAfterFinished: v.optional(NonNegativeIntSchema),
  retry: v.optional(RetryPolicySchema),
  template: PodTemplateSpecSchema,
});
export type CascadeModule = v.InferOutput<typeof CascadeModuleSchema>;

export const CascadeModulesSchema = v.pipe(v.array(CascadeModuleSchema), v.minLength(1));

export const ScenarioSchema = v.object({
  cascademodules: v.pipe(CascadeModulesSchema, v.description('Modules, run one after another in this order.')),
});
export type Scenario = v.InferOutput<typeof ScenarioSchema>;

/** Validate a scenario (parsed JSON of the scenario file, or a CR's scenarioconfig). */
export function parseScenario(json: unknown): ParseResult<Scenario> {
  return parseWith(ScenarioSchema, json);
}
