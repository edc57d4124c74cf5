import * as v from 'valibot';
import { StringMapSchema } from './primitives.ts';

/**
 * The parts of Kubernetes ObjectMeta that Cascade reads; every other field
 * (ownerReferences, managedFields, ...) is kept as it is.
 * The CRDs do not describe metadata: the API server owns its schema.
 */
export const ObjectMetaSchema = v.looseObject({
  name: v.string(),
  namespace: v.string(),
  uid: v.optional(v.string()),
  resourceVersion: v.optional(v.string()),
  generation: v.optional(v.pipe(v.number(), v.integer())),
  labels: v.optional(StringMapSchema),
  annotations: v.optional(StringMapSchema),
  finalizers: v.optional(v.array(v.string())),
  creationTimestamp: v.optional(v.string()),
  deletionTimestamp: v.optional(v.string()),
});
export type ObjectMeta = v.InferOutput<typeof ObjectMetaSchema>;
