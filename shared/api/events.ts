// Cascade's event contract: the CloudEvent types it takes and sends, and the
// schemas of their data (also the Go controller's plain HTTP bodies). The
// types of the inputs are inferred from the schemas, never written twice.
import * as v from 'valibot';
import { isDnsLabel, LABEL_RUN } from '../names.ts';

/** A run request (the Go controller's `POST /run` body). */
export const RUN_REQUESTED = 'net.cascade.run.requested.v1';
/** A module's result (the Go controller's `POST /` body). */
export const MODULE_FINISHED = 'net.cascade.module.finished.v1';
/** Knative ApiServerSource, Resource mode: a watched Job or CascadeRun was added, changed or deleted. */
export const APISERVER_EVENTS = ['add', 'update', 'delete'].map((verb) => `dev.knative.apiserver.resource.${verb}`);
/** Resume a Failed (or Cancelled) run from its stopped step (a plain body: the same data plus `"action": "resume"`). */
export const RUN_RESUME_REQUESTED = 'net.cascade.run.resume.requested.v1';
/** A request to cancel a run (also a plain body with `"action": "cancel"`). */
export const RUN_CANCEL_REQUESTED = 'net.cascade.run.cancel.requested.v1';
/** Sent to K_SINK when a run ends. */
export const RUN_SUCCEEDED = 'net.cascade.run.succeeded.v1';
export const RUN_FAILED = 'net.cascade.run.failed.v1';
export const RUN_CANCELLED = 'net.cascade.run.cancelled.v1';

// What arrives is validated, never transformed: a value that breaks a rule is
// refused with the rule, any other is kept byte for byte (nothing is trimmed,
// so "X\n" is refused rather than taken for "X").

/** An iuid names the run, its Jobs and its archive paths: a UUID, or a shorter id. */
export const IUID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const IUID_RULE = '1-64 characters of A-Z a-z 0-9 _ -, the first a letter or a digit';
/** Bounds of the other text fields, in UTF-16 code units. */
export const TEXT_MAX = { turlinfo: 2048, oname: 253, sname: 253, modulename: 253, moduleresult: 1024 } as const;

// C0 and C1 controls (DEL included) and the Unicode line and paragraph separators.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

function text(max: number, min = 1) {
  return v.pipe(
    v.string('must be a string'),
    v.minLength(min, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((s) => s.isWellFormed(), 'must be well-formed Unicode (a lone surrogate is not)'),
    v.check((s) => !CONTROL.test(s), 'must not contain control characters or line breaks'),
  );
}

const Iuid = v.pipe(v.string('must be a string'), v.regex(IUID_PATTERN, `must be ${IUID_RULE}`));
/** An address handed to the first module as `s3path`: surrounding whitespace is a mistake, refused rather than trimmed. */
const Turlinfo = v.pipe(
  text(TEXT_MAX.turlinfo),
  v.check((s) => s.trim() === s, 'must not begin or end with whitespace'),
);
/** Every run's name is a DNS-1123 label; anything else names no run (and never reaches an API path). */
const RUN_NAME_RULE = 'must be a run\'s name: a DNS-1123 label (a-z, 0-9, inner "-") of at most 63 characters';
const RunName = v.pipe(v.string('must be a string'), v.check(isDnsLabel, RUN_NAME_RULE));

/** A scenario is a CascadeAutoOperator's name, and the first part of its runs' names: a DNS-1123 label. */
const SCENARIO_RULE =
  'must be a CascadeAutoOperator\'s name: a DNS-1123 label (a-z, 0-9, inner "-") of at most 63 characters';
const ScenarioName = v.pipe(v.string('must be a string'), v.check(isDnsLabel, SCENARIO_RULE));

export const RunRequestSchema = v.object(
  {
    turlinfo: Turlinfo,
    iuid: Iuid,
    oname: v.optional(text(TEXT_MAX.oname, 0)),
    sname: v.optional(text(TEXT_MAX.sname, 0)),
    /** The CascadeAutoOperator (in the function's namespace) to run; SCENARIO_NAME when absent. */
    scenario: v.optional(ScenarioName),
  },
  'must be a JSON object',
);
export type RunRequest = v.InferOutput<typeof RunRequestSchema>;

export const ModuleResultSchema = v.object(
  {
    runname: RunName,
    modulename: text(TEXT_MAX.modulename),
    moduleresult: text(TEXT_MAX.moduleresult),
  },
  'must be a JSON object',
);
export type ModuleResult = v.InferOutput<typeof ModuleResultSchema>;

/**
 * Which run a control request names: its name, or the iuid of its run request
 * (the run that iuid's request made), exactly one of them.
 */
export const RunTargetSchema = v.pipe(
  v.object({ runname: v.optional(RunName), iuid: v.optional(Iuid) }, 'must be a JSON object'),
  v.check(
    (t) => (t.runname === undefined) !== (t.iuid === undefined),
    'must name the run by exactly one of runname and iuid',
  ),
);
export type RunTarget = v.InferOutput<typeof RunTargetSchema>;

/** A resume request's own id in a plain body (a CloudEvent's is its `id`). */
export const ResumeRequestIdSchema = v.object({ requestId: v.optional(text(253)) }, 'must be a JSON object');
/** What Cascade reads of an ApiServerSource event of a CascadeRun: its name, annotations and status (requests pending: shared/core/run-requests.ts). */
export const CascadeRunEventSchema = v.object(
  {
    kind: v.literal('CascadeRun', 'must be a CascadeRun'),
    metadata: v.object(
      {
        name: RunName,
        annotations: v.optional(v.record(v.string(), v.string('must be a string'), 'must be an object')),
      },
      'must be an object',
    ),
    status: v.optional(v.record(v.string(), v.unknown(), 'must be an object')),
  },
  'must be a JSON object',
);

const Timestamp = v.optional(v.string('must be a string'));
const JobCondition = v.object(
  {
    type: v.string('must be a string'),
    status: v.string('must be a string'),
    reason: v.optional(v.string('must be a string')),
    message: v.optional(v.string('must be a string')),
  },
  'must be an object',
);

/**
 * What Cascade reads of an ApiServerSource event's data: the Job's kind, name
 * and labels, and what tells whether it finished (uid, deletion, terminal
 * conditions, times).
 */
export const JobEventSchema = v.object(
  {
    kind: v.literal('Job', 'must be a Job'),
    status: v.optional(
      v.object(
        {
          conditions: v.optional(v.array(JobCondition, 'must be an array')),
          startTime: Timestamp,
          completionTime: Timestamp,
        },
        'must be an object',
      ),
    ),
    metadata: v.object(
      {
        name: text(253),
        uid: v.optional(v.string('must be a string')),
        creationTimestamp: Timestamp,
        deletionTimestamp: Timestamp,
        labels: v.optional(
          v.objectWithRest(
            // An empty value names no run: such a Job is not Cascade's.
            {
              [LABEL_RUN]: v.optional(
                v.pipe(
                  v.string('must be a string'),
                  v.check((s) => s === '' || isDnsLabel(s), RUN_NAME_RULE),
                ),
              ),
            },
            v.string('must be a string'),
            'must be an object',
          ),
        ),
      },
      'must be an object',
    ),
  },
  'must be a JSON object',
);

/** A run-end CloudEvent as the engine hands it to the K_SINK notifier. */
export interface RunEndEvent {
  id: string;
  type: typeof RUN_SUCCEEDED | typeof RUN_FAILED | typeof RUN_CANCELLED;
  source: string;
  subject: string;
  /** When the run ended (its completionTime): the same on every send. */
  time: string;
  data: Record<string, unknown>;
}
