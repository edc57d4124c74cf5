// What arrived, classified at the edge: CloudEvents (binary or structured) of
// four kinds, and the Go controller's plain JSON bodies, checked against the
// event contract (shared/api/events.ts). Pure: from what arrived to a typed
// request or a reason. See docs/architecture.md#validate-at-the-edges.
import * as v from 'valibot';
import { parseWith } from '../../shared/api/parse.ts';
import { quote } from '../../shared/api/reason.ts';
import {
  APISERVER_EVENTS,
  CascadeRunEventSchema,
  JobEventSchema,
  MODULE_FINISHED,
  ModuleResultSchema,
  ResumeRequestIdSchema,
  RUN_CANCEL_REQUESTED,
  RUN_REQUESTED,
  RUN_RESUME_REQUESTED,
  RunRequestSchema,
  RunTargetSchema,
  type ModuleResult,
  type RunRequest,
  type RunTarget,
} from '../../shared/api/events.ts';
import type { JobChange } from '../../shared/core/job-event.ts';
import { observeJob, type ObservedJob } from '../../shared/core/observed-job.ts';
import { pendingRequests } from '../../shared/core/run-requests.ts';
import { LABEL_RUN, shortHash } from '../../shared/names.ts';
import { NOT_AN_OBJECT } from './plain-body.ts';

export interface IncomingEvent {
  id: string;
  type: string;
  data: unknown;
}

export type Request =
  | { kind: 'run'; body: RunRequest }
  | { kind: 'result'; body: ModuleResult }
  /** `observed`: the event's Job as the core sees it, when its labels tell its step. */
  | { kind: 'job'; runname: string; job: string; change: JobChange; observed: ObservedJob | undefined }
  /** `requestId`: the CloudEvent's id or the body's; `bodyDigest` when a plain body gave none. */
  | { kind: 'resume'; target: RunTarget; requestId?: string; bodyDigest?: string }
  | { kind: 'cancel'; target: RunTarget }
  /** A CascadeRun changed and holds a request (an annotation) it has not handled. */
  | { kind: 'run-requests'; runname: string }
  /** A CascadeRun with no phase: created, not started yet (start-created.ts). */
  | { kind: 'run-start'; runname: string }
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

function parse<S extends v.GenericSchema>(
  schema: S,
  what: string,
  data: unknown,
): v.InferOutput<S> | { invalid: string } {
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

function asJob(change: JobChange, data: unknown): Request {
  const r = parse(JobEventSchema, 'ApiServerSource event', data);
  if ('invalid' in r) return { kind: 'invalid', reason: r.invalid };
  const runname = r.metadata.labels?.[LABEL_RUN];
  if (!runname) return { kind: 'ignored', reason: `Job ${quote(r.metadata.name)} is not Cascade's` };
  return { kind: 'job', runname, job: r.metadata.name, change, observed: observeJob(r) };
}

function jobChange(type: string): JobChange | undefined {
  const verb = type.slice(type.lastIndexOf('.') + 1);
  return APISERVER_EVENTS.includes(type) && (verb === 'add' || verb === 'update' || verb === 'delete')
    ? verb
    : undefined;
}

/** A resume request: its id is the CloudEvent's, else the plain body's `requestId`, else the body's digest. */
function asResume(data: unknown, id: string | undefined): Request {
  const target = parse(RunTargetSchema, 'resume request', data);
  if ('invalid' in target) return { kind: 'invalid', reason: target.invalid };
  if (id !== undefined) return { kind: 'resume', target, requestId: id };
  const own = parse(ResumeRequestIdSchema, 'resume request', data);
  if ('invalid' in own) return { kind: 'invalid', reason: own.invalid };
  if (own.requestId !== undefined) return { kind: 'resume', target, requestId: own.requestId };
  return { kind: 'resume', target, bodyDigest: shortHash(JSON.stringify(target), 16) };
}

function asCancel(data: unknown): Request {
  const r = parse(RunTargetSchema, 'cancel request', data);
  return 'invalid' in r ? { kind: 'invalid', reason: r.invalid } : { kind: 'cancel', target: r };
}

/**
 * A CascadeRun added or changed: decided from the event's object alone, so
 * that the many events of Cascade's own status writes cost no API call. A
 * deleted run has nothing to do; one with no phase is not started yet.
 */
function asCascadeRun(type: string, data: unknown): Request {
  const r = parse(CascadeRunEventSchema, 'ApiServerSource event', data);
  if ('invalid' in r) return { kind: 'invalid', reason: r.invalid };
  const { name } = r.metadata;
  const none = { kind: 'ignored', reason: `CascadeRun ${quote(name)}: no request pending` } as const;
  if (type.endsWith('.delete')) return none;
  if (pendingRequests(r).length > 0) return { kind: 'run-requests', runname: name };
  return r.status?.phase === undefined ? { kind: 'run-start', runname: name } : none;
}

function isCascadeRun(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'CascadeRun';
}

export function fromCloudEvent(event: IncomingEvent): Request {
  const data = dataOf(event.data);
  if (event.type === RUN_RESUME_REQUESTED) return asResume(data, event.id);
  if (event.type === RUN_REQUESTED) return asRun(data);
  if (event.type === MODULE_FINISHED) return asResult(data);
  if (event.type === RUN_CANCEL_REQUESTED) return asCancel(data);
  const change = jobChange(event.type);
  if (change) return isCascadeRun(data) ? asCascadeRun(event.type, data) : asJob(change, data);
  return { kind: 'invalid', reason: `unsupported event type ${quote(event.type)}` };
}

/** Plain bodies with an `action`: requests to control a run. */
const ACTIONS: Record<string, (data: unknown) => Request> = {
  resume: (data) => asResume(data, undefined),
  cancel: asCancel,
};

function asAction(action: unknown, data: unknown): Request {
  const known = typeof action === 'string' && Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (known) return known(data);
  return {
    kind: 'invalid',
    reason: `unknown action ${typeof action === 'string' ? quote(action) : `of type ${typeof action}`}: must be one of ${Object.keys(ACTIONS).join(', ')}`,
  };
}

/** A plain POST: a run request or a module status as the Go controller takes them (its `POST /run` and `POST /`), or a control request (`action`). */
export function fromHttpBody(body: unknown): Request {
  const data = dataOf(body);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { kind: 'invalid', reason: NOT_AN_OBJECT };
  }
  if ('action' in data) return asAction(data.action, data);
  if ('runname' in data || 'modulename' in data || 'moduleresult' in data) return asResult(data);
  return asRun(data);
}
