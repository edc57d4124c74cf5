import type * as v from 'valibot';
import { dump } from 'js-yaml';
import { CascadeAutoOperatorSchema } from './cascade-auto-operator.ts';
import { CascadeRunSchema, CONDITION_SUCCEEDED } from './cascade-run.ts';
import * as g from './group.ts';
import { toOpenApi, type OpenApiSchema } from './openapi.ts';

/**
 * The CustomResourceDefinitions, built from the valibot schemas (the single
 * source of truth). `npm run gen:crds` writes them to crds/; a unit test
 * fails when the committed files drift from what this module produces.
 */

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

interface KindNames {
  kind: string;
  plural: string;
  singular: string;
  shortName: string;
}

interface CrdDefinition {
  names: KindNames;
  schema: v.GenericSchema<unknown, unknown>;
  columns: PrinterColumn[];
}

export interface GeneratedCrd {
  /** File name under crds/, e.g. `cascaderuns.cascade.cascade.net.yaml`. */
  file: string;
  crd: Record<string, unknown>;
}

const succeeded = `.status.conditions[?(@.type=="${CONDITION_SUCCEEDED}")]`;
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const CASCADE_RUN: CrdDefinition = {
  names: {
    kind: g.CASCADE_RUN_KIND,
    plural: g.CASCADE_RUN_PLURAL,
    singular: g.CASCADE_RUN_SINGULAR,
    shortName: g.CASCADE_RUN_SHORT_NAME,
  },
  schema: CascadeRunSchema,
  columns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Phase of the run' },
    { name: 'Module', type: 'string', jsonPath: '.status.currentModule', description: 'Module now running' },
    { name: 'Step', type: 'integer', jsonPath: '.status.currentStep', description: 'Index of that module' },
    { name: 'Succeeded', type: 'string', jsonPath: `${succeeded}.status`, description: 'Succeeded condition' },
    { name: 'Reason', type: 'string', jsonPath: `${succeeded}.reason`, priority: 1 },
    { name: 'Pid', type: 'string', jsonPath: '.spec.pid', description: 'iuid of the run request', priority: 1 },
    AGE,
  ],
};

const CASCADE_AUTO_OPERATOR: CrdDefinition = {
  names: {
    kind: g.CASCADE_AUTO_OPERATOR_KIND,
    plural: g.CASCADE_AUTO_OPERATOR_PLURAL,
    singular: g.CASCADE_AUTO_OPERATOR_SINGULAR,
    shortName: g.CASCADE_AUTO_OPERATOR_SHORT_NAME,
  },
  schema: CascadeAutoOperatorSchema,
  columns: [
    { name: 'Active', type: 'integer', jsonPath: '.status.active', description: 'Runs in progress' },
    { name: 'Queued', type: 'integer', jsonPath: '.status.queued', description: 'Runs waiting for a slot' },
    { name: 'Succeeded', type: 'integer', jsonPath: '.status.succeeded', description: 'Runs that succeeded' },
    { name: 'Failed', type: 'integer', jsonPath: '.status.failed', description: 'Runs that failed' },
    { name: 'Cancelled', type: 'integer', jsonPath: '.status.cancelled', description: 'Runs that were cancelled' },
    { name: 'Result', type: 'string', jsonPath: '.status.result', description: 'Last run result', priority: 1 },
    {
      name: 'Limit',
      type: 'integer',
      jsonPath: '.spec.maxConcurrentRuns',
      description: 'Most runs in progress at once',
      priority: 1,
    },
    AGE,
  ],
};

const SERVER_OWNED = new Set(['apiVersion', 'kind', 'metadata']);

/** Root schema: apiVersion/kind/metadata are the API server's, spec is required. */
function rootSchema(schema: v.GenericSchema<unknown, unknown>): OpenApiSchema {
  const converted = toOpenApi(schema);
  const rest = Object.fromEntries(Object.entries(converted.properties ?? {}).filter(([key]) => !SERVER_OWNED.has(key)));
  return {
    ...(converted.description === undefined ? {} : { description: converted.description }),
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      ...rest,
    },
    required: (converted.required ?? []).filter((key) => key in rest),
  };
}

function buildCrd({ names, schema, columns }: CrdDefinition): GeneratedCrd {
  const name = `${names.plural}.${g.GROUP}`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: g.GROUP,
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.singular,
        shortNames: [names.shortName],
        categories: [g.CATEGORY],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: g.VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columns,
          schema: { openAPIV3Schema: rootSchema(schema) },
        },
      ],
    },
  };
  return { file: `${name}.yaml`, crd };
}

/** Every CRD of the project, in a stable order. */
export function generateCrds(): GeneratedCrd[] {
  return [CASCADE_RUN, CASCADE_AUTO_OPERATOR].map(buildCrd);
}

export const CRD_HEADER = '# Generated by `npm run gen:crds` (scripts/gen-crds.ts) from shared/api: do not edit.\n';

/** The YAML text committed under crds/. */
export function renderCrd(crd: Record<string, unknown>): string {
  return CRD_HEADER + dump(crd, { lineWidth: -1, noRefs: true });
}
