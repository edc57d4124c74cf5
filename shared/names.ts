// Deterministic Kubernetes names for runs and Jobs: the Go controller's names
// where they are valid and unique, a hashed suffix where they are not.
// Pure: no I/O. See docs/architecture.md#deterministic-names.
import { createHash } from 'node:crypto';
import { quote } from './api/reason.ts';

export const LABEL_APP = 'app';
export const LABEL_APP_VALUE = 'Cascade';
export const LABEL_GO_MODULE = 'modulename';
export const LABEL_RUN = 'cascade.cascade.net/run';
export const LABEL_STEP = 'cascade.cascade.net/step';
export const LABEL_MODULE = 'cascade.cascade.net/module';
/** Label of a Job: the attempt of its step it runs ("1" for the first). */
export const LABEL_ATTEMPT = 'cascade.cascade.net/attempt';
export const LABEL_IUID_HASH = 'cascade.cascade.net/iuid-hash';
/** Annotation of a CascadeRun: where its scenario came from (`CascadeAutoOperator/<name>` or `file:<path>`). */
export const ANNOTATION_SCENARIO_SOURCE = 'cascade.cascade.net/scenario-source';
/** Annotation of a CascadeRun a user sets to resume it (`kubectl annotate`): a new value is a new request. */
export const ANNOTATION_RESUME_REQUESTED_AT = 'cascade.cascade.net/resume-requested-at';
/** Annotation of a CascadeRun a user sets to cancel it (`kubectl annotate`): a new value is a new request. */
export const ANNOTATION_CANCEL_REQUESTED_AT = 'cascade.cascade.net/cancel-requested-at';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const MAX_LABEL = 63;

export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

export function isDnsLabel(name: string): boolean {
  return name.length <= MAX_LABEL && DNS_LABEL.test(name);
}

/** Makes any text a valid DNS-1123 label; when it had to change it, a hash of the original keeps it unique. */
export function toDnsLabel(text: string): string {
  if (isDnsLabel(text)) return text;
  const cleaned = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const room = MAX_LABEL - 9;
  const head = cleaned.slice(0, room).replace(/-+$/g, '');
  return head ? `${head}-${shortHash(text)}` : `x-${shortHash(text)}`;
}

/** A valid label value (at most 63 characters); hashed when the text is not one already. */
export function toLabelValue(text: string): string {
  if (text.length <= MAX_LABEL && LABEL_VALUE.test(text)) return text;
  return toDnsLabel(text);
}

/** The Go controller's run suffix: the first 5 characters of the iuid (all of it when shorter). */
export function iuidPrefix(iuid: string): string {
  return iuid.slice(0, 5);
}

export type RunNameResult = { ok: true; name: string } | { ok: false; reason: string };

/**
 * The run's name. `collided` is true when a live run of another iuid already
 * holds the Go controller's name; the run then gets `-<hash of iuid>` appended.
 */
export function runName(scenarioName: string, iuid: string, collided = false): RunNameResult {
  const prefix = iuidPrefix(iuid);
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(prefix) || /-$/.test(prefix)) {
    return {
      ok: false,
      reason: `iuid ${quote(iuid)} cannot make a valid Kubernetes name: its first characters ${quote(prefix)} must be letters, digits or inner "-"`,
    };
  }
  const base = `${scenarioName}-${prefix.toLowerCase()}`;
  const name = collided ? `${base}-${shortHash(iuid)}` : base;
  if (!isDnsLabel(name)) {
    return {
      ok: false,
      reason: `run name ${quote(name)} (from SCENARIO_NAME and iuid) is not a valid DNS-1123 label of at most 63 characters`,
    };
  }
  return { ok: true, name };
}

/** What the Go controller appended to names: the run name without the scenario prefix. */
export function runSuffix(scenarioName: string, run: string): string {
  return run.startsWith(`${scenarioName}-`) ? run.slice(scenarioName.length + 1) : run;
}

/**
 * The Job name of one step: `<scenario>-<module>-<run suffix>` as the Go
 * controller named it, with `-<step>` added when the module name occurs more
 * than once in the scenario, and hashed down to a valid 63-character label.
 */
export function jobName(scenarioName: string, run: string, moduleNames: readonly string[], step: number): string {
  const module = moduleNames[step] ?? `step${step}`;
  const repeated = moduleNames.filter((m) => m === module).length > 1;
  const base = `${scenarioName}-${module}-${runSuffix(scenarioName, run)}`;
  return toDnsLabel(repeated ? `${base}-${step}` : base);
}

/** The Job of attempt `attempt` of a step: the step's Job name for the first, `<that name>-a<n>` after. */
export function attemptJobName(stepJobName: string, attempt: number): string {
  return attempt <= 1 ? stepJobName : toDnsLabel(`${stepJobName}-a${attempt}`);
}
