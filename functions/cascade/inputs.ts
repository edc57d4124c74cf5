// The public contract of the function, checked at the edge (design note 4):
// CloudEvents (binary or structured) of three kinds, and the Go controller's
// plain JSON bodies. Pure: from what arrived to a typed request or a reason.
import * as v from 'valibot';
import { parseWith } from '../../shared/api/parse.ts';
import type { ModuleResult } from '../../shared/engine/module-result.ts';
import type { RunRequest } from '../../shared/engine/start-run.ts';
import { LABEL_RUN } from '../../shared/names.ts';

export const RUN_REQUESTED = 'net.cascade.run.requested.v1';
export const MODULE_FINISHED = 'net.cascade.module.finished.v1';
export const APISERVER_EVENTS = ['add', 'update', 'delete'].map((verb) => `dev.knative.apiserver.resource.${verb}`);

const Text = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'));
const OptionalText = v.optional(v.string('must be a string'));

export const RunRequestSchema = v.object({ turlinfo: Text, iuid: Text, oname: OptionalText, sname: OptionalText });
export const ModuleResultSchema = v.object({ runname: Text, modulename: Text, moduleresult: Text });
const JobEventSchema = v.object({
  kind: v.literal('Job', 'must be a Job'),
  metadata: v.object({ name: v.string(), labels: v.optional(v.record(v.string(), v.string())) }),
});

export interface IncomingEvent {
  id: string;
  type: string;
  data: unknown;
}

export type Request =
  | { kind: 'run'; body: RunRequest }
  | { kind: 'result'; body: ModuleResult }
  | { kind: 'job'; runname: string; job: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; reason: string };

function dataOf(data: unknown): unknown {
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) return data;
  try {
    return JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
  } catch {
    return Symbol('not JSON');
  }
}

function parse<S extends v.GenericSchema>(schema: S, what: string, data: unknown): v.InferOutput<S> | { invalid: string } {
  if (typeof data === 'symbol') return { invalid: `${what}: the data is not JSON` };
  const r = parseWith(schema, data);
  return r.ok ? r.value : { invalid: `${what}: ${r.reason}` };
}

function asRun(data: unknown): Request {
  const r = parse(RunRequestSchema, 'run request', data);
  return 'invalid' in r ? { kind: 'invalid', reason: r.invalid } : { kind: 'run', body: r };
}

function asResult(data: unknown): Request {
  const r = parse(ModuleResultSchema, 'module result', data);
  return 'invalid' in r ? { kind: 'invalid', reason: r.invalid } : { kind: 'result', body: r };
}

function asJob(data: unknown): Request {
  const r = parse(JobEventSchema, 'ApiServerSource event', data);
  if ('invalid' in r) return { kind: 'invalid', reason: r.invalid };
  const runname = r.metadata.labels?.[LABEL_RUN];
  return runname ? { kind: 'job', runname, job: r.metadata.name } : { kind: 'ignored', reason: `Job ${r.metadata.name} is not Cascade's` };
}

export function fromCloudEvent(event: IncomingEvent): Request {
  const data = dataOf(event.data);
  if (event.type === RUN_REQUESTED) return asRun(data);
  if (event.type === MODULE_FINISHED) return asResult(data);
  if (APISERVER_EVENTS.includes(event.type)) return asJob(data);
  return { kind: 'invalid', reason: `unsupported event type "${event.type}"` };
}

/** A plain POST: the Go controller's run request (`POST /run` before) or module status (`POST /`). */
export function fromHttpBody(body: unknown): Request {
  const data = dataOf(body);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { kind: 'invalid', reason: 'the body must be a JSON object: a run request {turlinfo, iuid, oname?, sname?} or a module result {runname, modulename, moduleresult}' };
  }
  if ('runname' in data || 'modulename' in data || 'moduleresult' in data) return asResult(data);
  return asRun(data);
}
