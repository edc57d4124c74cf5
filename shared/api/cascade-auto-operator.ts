import * as v from 'valibot';
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND } from './group.ts';
import { ObjectMetaSchema } from './meta.ts';
import { parseWith, type ParseResult } from './parse.ts';
import { NonNegativeIntSchema } from './primitives.ts';
import { CascadeModulesSchema } from './scenario.ts';

/**
 * A CascadeAutoOperator: the scenario's resource, holding its module list,
 * its concurrency limit, the run counters and the run queue. Its spec declares
 * every field Cascade reads, and the two the Go controller's objects carry
 * (replicas, template: accepted, ignored); any other field is unknown to the
 * API server (refused under strict field validation, pruned otherwise: README).
 */

/** Values of `status.result` as the Go controller wrote them ('' before any run ended), and Cascade's `Cancelled`. */
export const CAO_RESULTS = ['', 'Success', 'Fail', 'Cancelled'] as const;
export type CaoResult = (typeof CAO_RESULTS)[number];

/** Most runs a queue holds (`status.queue`): the operator's status must stay well under etcd's object size limit. */
export const QUEUE_MAX = 2000;

export const CascadeAutoOperatorSpecSchema = v.object({
  scenarioconfig: v.pipe(
    v.object({
      cascademodules: v.pipe(CascadeModulesSchema, v.description('Modules of the scenario, in order.')),
    }),
    v.description('The scenario: what a run of it does.'),
  ),
  replicas: v.optional(
    v.pipe(
      NonNegativeIntSchema,
      v.description(
        'Go controller: replicas of its own Deployment. Accepted so that its manifests still apply; Cascade ignores it.',
      ),
    ),
  ),
  template: v.optional(
    v.pipe(
      v.looseObject({}),
      v.description(
        'Go controller: pod template of its own Deployment. Accepted so that its manifests still apply; Cascade ignores it.',
      ),
    ),
  ),
  maxConcurrentRuns: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description(
        'Most runs of this scenario in progress at once; a run request beyond it is accepted and queued (phase Queued), first in first out. Unset: no limit.',
      ),
    ),
  ),
});
export type CascadeAutoOperatorSpec = v.InferOutput<typeof CascadeAutoOperatorSpecSchema>;

/** Counters a tally of the runs by phase (core/tally.ts); holders and queue the concurrency limit (core/concurrency-limit.ts). */
export const CascadeAutoOperatorStatusSchema = v.pipe(
  v.object({
    active: v.optional(
      v.pipe(NonNegativeIntSchema, v.description('Runs in progress: phase Pending or Running, or no phase yet.')),
    ),
    succeeded: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs in phase Succeeded.'))),
    failed: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs in phase Failed.'))),
    queued: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs in phase Queued, waiting for a slot.'))),
    cancelled: v.optional(v.pipe(NonNegativeIntSchema, v.description('Runs in phase Cancelled.'))),
    result: v.optional(
      v.pipe(
        v.picklist(CAO_RESULTS),
        v.description('Outcome of the run that ended last; kept as it was when no ended run is left.'),
      ),
    ),
    holders: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description(
          'Under spec.maxConcurrentRuns: the runs holding one of its slots (admitted, not yet ended); a resumed run as <name>/r<N>.',
        ),
      ),
    ),
    queue: v.optional(
      v.pipe(
        v.array(v.string()),
        v.maxLength(QUEUE_MAX),
        v.description('Under spec.maxConcurrentRuns: the runs waiting for a slot, oldest first.'),
      ),
    ),
  }),
  v.description(
    "The counters are a tally of the scenario's existing runs by phase, rewritten whole, never incremented; a deleted run leaves them. holders and queue are the concurrency limit.",
  ),
);
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
