import * as v from 'valibot';
import { API_VERSION, CASCADE_RUN_KIND } from './group.ts';
import { ObjectMetaSchema } from './meta.ts';
import { parseWith, type ParseResult } from './parse.ts';
import { NonEmptyStringSchema, openapi } from './primitives.ts';
import { CascadeModulesSchema } from './scenario.ts';
import { CascadeRunStatusSchema } from './run-status.ts';

export * from './run-status.ts';

/**
 * A CascadeRun: one execution of a scenario. The spec carries the Go
 * controller's fields (ob, src, pid, scenarioname, modules) plus Cascade's
 * turlinfo and a snapshot of the scenario taken when the run was created
 * (optional, so that runs written by the Go controller remain valid).
 */
export const CascadeRunSpecSchema = v.pipe(
  v.object({
    ob: v.optional(v.pipe(v.string(), v.description('Go controller: oname of the run request.'))),
    src: v.optional(v.pipe(v.string(), v.description('Go controller: sname of the run request.'))),
    pid: v.pipe(NonEmptyStringSchema, v.description('iuid of the run request.')),
    scenarioname: v.pipe(v.string(), v.description('Name of the scenario (of its CascadeAutoOperator).')),
    modules: v.pipe(v.array(v.string()), v.description('Module names, in order.')),
    turlinfo: v.optional(v.pipe(v.string(), v.description('Input URL handed to the first module as s3path.'))),
    cascademodules: v.optional(
      v.pipe(CascadeModulesSchema, v.description('Snapshot of the scenario taken when the run was created.')),
    ),
  }),
  openapi({
    // Enforced by the API server only: a run's input never changes once created.
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: 'spec is immutable: create a new CascadeRun instead' },
    ],
  }),
);
export type CascadeRunSpec = v.InferOutput<typeof CascadeRunSpecSchema>;

export const CascadeRunSchema = v.pipe(
  v.object({
    apiVersion: v.literal(API_VERSION),
    kind: v.literal(CASCADE_RUN_KIND),
    metadata: ObjectMetaSchema,
    spec: CascadeRunSpecSchema,
    status: v.optional(CascadeRunStatusSchema),
  }),
  v.description('CascadeRun is one run of a cascade scenario: its modules run one after another as Jobs.'),
);
export type CascadeRun = v.InferOutput<typeof CascadeRunSchema>;

/** Validate a CascadeRun read from the API server (or built to be written). */
export function parseCascadeRun(obj: unknown): ParseResult<CascadeRun> {
  return parseWith(CascadeRunSchema, obj);
}
