// Cascade's event contract: the CloudEvent types it takes and sends, and the
// schemas of their data (also the Go controller's plain HTTP bodies). The
// types of the inputs are inferred from the schemas, never written twice.
import * as v from 'valibot';

/** A run request (the Go controller's `POST /run` body). */
export const RUN_REQUESTED = 'net.cascade.run.requested.v1';
/** A module's result (the Go controller's `POST /` body). */
export const MODULE_FINISHED = 'net.cascade.module.finished.v1';
/** Knative ApiServerSource, Resource mode: a watched Job was added, changed or deleted. */
export const APISERVER_EVENTS = ['add', 'update', 'delete'].map((verb) => `dev.knative.apiserver.resource.${verb}`);
/** Sent to K_SINK when a run ends. */
export const RUN_SUCCEEDED = 'net.cascade.run.succeeded.v1';
export const RUN_FAILED = 'net.cascade.run.failed.v1';

const Text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const OptionalText = v.optional(v.string('must be a string'));

export const RunRequestSchema = v.object({ turlinfo: Text, iuid: Text, oname: OptionalText, sname: OptionalText });
export type RunRequest = v.InferOutput<typeof RunRequestSchema>;

export const ModuleResultSchema = v.object({ runname: Text, modulename: Text, moduleresult: Text });
export type ModuleResult = v.InferOutput<typeof ModuleResultSchema>;

/** What Cascade reads of an ApiServerSource event's data: the Job's kind, name and labels. */
export const JobEventSchema = v.object({
  kind: v.literal('Job', 'must be a Job'),
  metadata: v.object({ name: v.string(), labels: v.optional(v.record(v.string(), v.string())) }),
});

/** A run-end CloudEvent as the engine hands it to the K_SINK notifier. */
export interface RunEndEvent {
  id: string;
  type: typeof RUN_SUCCEEDED | typeof RUN_FAILED;
  source: string;
  subject: string;
  data: Record<string, unknown>;
}
