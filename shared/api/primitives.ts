import * as v from 'valibot';

/**
 * Small schemas shared by the API types. Everything here converts to
 * structural OpenAPI (see openapi.ts), so the CRDs stay in step with the types.
 */

/** Extra OpenAPI keywords for the CRD (e.g. `x-kubernetes-validations`), attached with `v.metadata`. */
export type OpenApiExtra = Record<string, unknown>;

/** Pipe item adding CRD-only OpenAPI keywords to a schema; invisible to parsing. */
export function openapi<TInput>(extra: OpenApiExtra): v.MetadataAction<TInput, { readonly openapi: OpenApiExtra }> {
  return v.metadata<TInput, { readonly openapi: OpenApiExtra }>({ openapi: extra });
}

export const NonEmptyStringSchema = v.pipe(v.string(), v.minLength(1));

/** RFC 3339 date-time, as Kubernetes writes it (`2024-05-01T10:00:00Z`). */
export const TimestampSchema = v.pipe(v.string(), v.isoTimestamp(), v.description('RFC 3339 date-time.'));

export const NonNegativeIntSchema = v.pipe(v.number(), v.integer(), v.minValue(0));

export const StringMapSchema = v.record(v.string(), v.string());
