import type * as v from 'valibot';

/**
 * valibot → structural OpenAPI v3 (the dialect of CRD `openAPIV3Schema`).
 *
 * Deliberately small and strict: it knows the schemas and actions the API
 * types use and throws on anything else, so a schema can never mean more
 * (or less) to the API server than to the code without the generator noticing.
 * `looseObject` becomes `x-kubernetes-preserve-unknown-fields: true`; extra
 * CRD keywords come from `v.metadata({ openapi: {...} })` (see primitives.ts).
 */
export interface OpenApiSchema {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema;
  [extension: `x-kubernetes-${string}`]: unknown;
}

/** The fields of valibot's schema and action objects that the converter reads. */
interface Node {
  kind: string;
  type: string;
  pipe?: readonly Node[];
  wrapped?: Node;
  entries?: Record<string, Node>;
  item?: Node;
  key?: Node;
  value?: Node;
  options?: readonly unknown[];
  literal?: unknown;
  requirement?: unknown;
  description?: string;
  metadata?: { openapi?: Record<string, unknown> };
}

const OPTIONAL_TYPES = new Set(['optional', 'exact_optional', 'nullish']);
const LENGTH_KEYS = {
  string: ['minLength', 'maxLength'],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
} as const;

class UnsupportedSchemaError extends Error {}

function fail(what: string, node: Node): never {
  throw new UnsupportedSchemaError(`valibot → OpenAPI: unsupported ${what} "${node.type}"`);
}

function convertObject(node: Node): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  const required: string[] = [];
  for (const [key, entry] of Object.entries(node.entries ?? {})) {
    properties[key] = convert(entry);
    if (!OPTIONAL_TYPES.has(entry.type)) required.push(key);
  }
  const out: OpenApiSchema = { type: 'object' };
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.length > 0) out.required = required;
  if (node.type === 'loose_object') out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

function convertEnum(values: readonly unknown[], node: Node): OpenApiSchema {
  const kinds = new Set(values.map((value) => typeof value));
  const [kind] = kinds;
  if (kinds.size !== 1 || (kind !== 'string' && kind !== 'number' && kind !== 'boolean')) {
    fail('enum of mixed or non-scalar values in', node);
  }
  return { type: kind, enum: [...values] };
}

function child(node: Node, field: 'wrapped' | 'item' | 'key' | 'value'): Node {
  const found = node[field];
  if (found === undefined) fail(`schema without ${field}:`, node);
  return found;
}

function convertRecord(node: Node): OpenApiSchema {
  if (child(node, 'key').type !== 'string') fail('record key of', node);
  return { type: 'object', additionalProperties: convert(child(node, 'value')) };
}

const BASE: Record<string, (node: Node) => OpenApiSchema> = {
  string: () => ({ type: 'string' }),
  number: () => ({ type: 'number' }),
  boolean: () => ({ type: 'boolean' }),
  unknown: () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  picklist: (node) => convertEnum(node.options ?? [], node),
  literal: (node) => convertEnum([node.literal], node),
  object: convertObject,
  loose_object: convertObject,
  strict_object: convertObject,
  array: (node) => ({ type: 'array', items: convert(child(node, 'item')) }),
  record: convertRecord,
  optional: (node) => convert(child(node, 'wrapped')),
  exact_optional: (node) => convert(child(node, 'wrapped')),
  nullish: (node) => ({ ...convert(child(node, 'wrapped')), nullable: true }),
  nullable: (node) => ({ ...convert(child(node, 'wrapped')), nullable: true }),
};

function lengthKey(out: OpenApiSchema, bound: 0 | 1, action: Node): string {
  const keys =
    out.type === 'string' || out.type === 'array' || out.type === 'object' ? LENGTH_KEYS[out.type] : undefined;
  if (keys === undefined) fail('length bound on a non-string, non-array action', action);
  return keys[bound];
}

const ACTIONS: Record<string, (out: OpenApiSchema, action: Node) => void> = {
  min_length: (out, action) => Object.assign(out, { [lengthKey(out, 0, action)]: action.requirement }),
  max_length: (out, action) => Object.assign(out, { [lengthKey(out, 1, action)]: action.requirement }),
  min_value: (out, action) => Object.assign(out, { minimum: action.requirement }),
  max_value: (out, action) => Object.assign(out, { maximum: action.requirement }),
  integer: (out) => Object.assign(out, { type: 'integer' }),
  iso_timestamp: (out) => Object.assign(out, { format: 'date-time' }),
  regex: (out, action) => Object.assign(out, { pattern: (action.requirement as RegExp).source }),
  description: (out, action) => Object.assign(out, { description: action.description }),
  title: () => undefined,
  metadata: (out, action) => Object.assign(out, action.metadata?.openapi ?? {}),
};

const NESTED_KEYS = new Set(['properties', 'required', 'items', 'additionalProperties']);

function rank(key: string): number {
  if (key === 'description') return 0;
  if (NESTED_KEYS.has(key)) return 2;
  return key.startsWith('x-kubernetes-') ? 3 : 1;
}

/** Description first, then type and constraints, nested schemas, `x-kubernetes-*` last. */
function ordered(out: OpenApiSchema): OpenApiSchema {
  const entries = Object.entries(out).sort(([a], [b]) => rank(a) - rank(b));
  return Object.fromEntries(entries) as OpenApiSchema;
}

/** Structural OpenAPI v3 for a valibot schema; throws on constructs it cannot express faithfully. */
export function toOpenApi(schema: v.GenericSchema<unknown, unknown>): OpenApiSchema {
  return convert(schema as unknown as Node);
}

function convert(node: Node): OpenApiSchema {
  if (node.kind !== 'schema') fail('node kind', node);
  const [head, ...actions] = node.pipe ?? [];
  if (head === undefined) {
    const base = BASE[node.type] ?? fail('schema type', node);
    return ordered(base(node));
  }
  const out = { ...convert(head) };
  for (const action of actions) {
    const apply = ACTIONS[action.type] ?? fail('action', action);
    apply(out, action);
  }
  return ordered(out);
}
