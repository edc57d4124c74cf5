import * as v from 'valibot';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND } from './group.ts';
import { ObjectMetaSchema } from './meta.ts';
import { parseWith, type ParseResult } from './parse.ts';
import { NonNegativeIntSchema } from './primitives.ts';
import { CascadeModulesSchema } from './scenario.ts';

/**
 * A CascadeAutoOperator: the scenario's resource, holding its module list
 * and the run counters. The Go controller's spec had more fields (a
 * Deployment-like template, replicas, ...): they are kept, not described.
 */

/** Values of `status.result` as the Go controller wrote them ('' before any run ended). */
export const CAO_RESULTS = ['', 'Success', 'Fail'] as const;
export type CaoResult = (typeof CAO_RESULTS)[number];

/** Most dedupe keys kept in `status.countedRuns`; writers drop the oldest beyond it. */
export const COUNTED_RUNS_MAX = 256;

export const CascadeAutoOperatorSpecSchema = v.looseObject({
  scenarioconfig: v.looseObject({
    cascademodules: v.pipe(CascadeModulesSchema, v.description('Modules of the scenario, in order.')),
  }),
});
export type CascadeAutoOperatorSpec = v.InferOutput<typeof CascadeAutoOperatorSpecSchema>;

export const CascadeAutoOperatorStatusSchema = v.object({
  active: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs in progress.'))),
  succeeded: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs that succeeded.'))),
  failed: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs that failed.'))),
  result: v.optional(v.pipe(v.picklist(CAO_RESULTS), v.description('Result of the last run that ended.'))),
  countedRuns: v.optional(
    v.pipe(
      v.array(v.string()),
      v.maxLength(COUNTED_RUNS_MAX),
      v.description('Dedupe keys of the counter updates already applied, oldest first (exactly-once counting).'),
    ),
  ),
});
export type CascadeAutoOperatorStatus = v.InferOutput<typeof CascadeAutoOperatorStatusSchema>;

export const CascadeAutoOperatorSchema = v.pipe(
  v.object({
    apiVersion: v.literal(API_VERSION),
    kind: v.literal(CASCADE_AUTO_OPERATOR_KIND),
    metadata: ObjectMetaSchema,
    spec: CascadeAutoOperatorSpecSchema,
    status: v.optional(CascadeAutoOperatorStatusSchema),
  }),
  v.description('CascadeAutoOperator holds a cascade scenario and counts its runs.'),
);
export type CascadeAutoOperator = v.InferOutput<typeof CascadeAutoOperatorSchema>;

/** Validate a CascadeAutoOperator read from the API server. */
export function parseCascadeAutoOperator(obj: unknown): ParseResult<CascadeAutoOperator> {
  return parseWith(CascadeAutoOperatorSchema, obj);
}
