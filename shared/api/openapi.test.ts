import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { toOpenApi, type OpenApiSchema } from './openapi.ts';
import { openapi } from './primitives.ts';

describe('toOpenApi', () => {
  it.each<[string, v.GenericSchema<unknown, unknown>, OpenApiSchema]>([
    ['string', v.string(), { type: 'string' }],
    [
      'non-empty string',
      v.pipe(v.string(), v.minLength(1), v.maxLength(9)),
      { type: 'string', minLength: 1, maxLength: 9 },
    ],
    ['pattern', v.pipe(v.string(), v.regex(/^[a-z]+$/)), { type: 'string', pattern: '^[a-z]+$' }],
    ['timestamp', v.pipe(v.string(), v.isoTimestamp()), { type: 'string', format: 'date-time' }],
    ['integer ≥ 0', v.pipe(v.number(), v.integer(), v.minValue(0)), { type: 'integer', minimum: 0 }],
    ['number ≤ 1', v.pipe(v.number(), v.maxValue(1)), { type: 'number', maximum: 1 }],
    ['boolean', v.boolean(), { type: 'boolean' }],
    ['picklist', v.picklist(['A', 'B']), { type: 'string', enum: ['A', 'B'] }],
    ['literal', v.literal('x'), { type: 'string', enum: ['x'] }],
    [
      'array bounds',
      v.pipe(v.array(v.string()), v.minLength(1), v.maxLength(3)),
      { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
    ],
    ['string map', v.record(v.string(), v.string()), { type: 'object', additionalProperties: { type: 'string' } }],
    [
      'object with optional entries',
      v.object({ a: v.string(), b: v.optional(v.boolean()) }),
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean' } }, required: ['a'] },
    ],
    [
      'loose object',
      v.looseObject({ a: v.string() }),
      {
        type: 'object',
        properties: { a: { type: 'string' } },
        required: ['a'],
        'x-kubernetes-preserve-unknown-fields': true,
      },
    ],
    ['empty loose object', v.looseObject({}), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
    ['nullable', v.nullable(v.string()), { type: 'string', nullable: true }],
    [
      'nested pipes and description',
      v.pipe(v.pipe(v.string(), v.minLength(1)), v.description('d')),
      { description: 'd', type: 'string', minLength: 1 },
    ],
    [
      'openapi extras',
      v.pipe(v.array(v.object({ type: v.string() })), openapi({ 'x-kubernetes-list-type': 'map' })),
      {
        type: 'array',
        items: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] },
        'x-kubernetes-list-type': 'map',
      },
    ],
  ])('converts %s', (_name, schema, expected) => {
    expect(toOpenApi(schema)).toEqual(expected);
  });

  it.each<[string, v.GenericSchema<unknown, unknown>]>([
    ['a union', v.union([v.string(), v.number()])],
    [
      'a custom check',
      v.pipe(
        v.string(),
        v.check((s) => s !== 'x'),
      ),
    ],
    [
      'a transform',
      v.pipe(
        v.string(),
        v.transform((s) => s.length),
      ) as v.GenericSchema<unknown, unknown>,
    ],
    ['a record with non-string keys', v.record(v.picklist(['a']), v.string())],
    ['a mixed enum', v.picklist(['a', 1] as never)],
  ])('refuses %s rather than describe it wrongly', (_name, schema) => {
    expect(() => toOpenApi(schema)).toThrow(/unsupported/);
  });

  it('orders keys: description, scalars, nested, x-kubernetes-*', () => {
    const out = toOpenApi(v.pipe(v.looseObject({ a: v.string() }), v.description('d')));
    expect(Object.keys(out)).toEqual([
      'description',
      'type',
      'properties',
      'required',
      'x-kubernetes-preserve-unknown-fields',
    ]);
  });
});
