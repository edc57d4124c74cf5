// What the ui's server and its page say to each other: the JSON of the API
// and the messages of its Server-Sent Events stream. Pure types and helpers:
// the page's bundle imports this file too.

/** A run as the list shows it: a few fields, so that 10,000 of them stay small. */
export interface RunSummary {
  /** `namespace/name`. */
  key: string;
  namespace: string;
  name: string;
  scenario: string;
  iuid: string;
  phase: string;
  /** Steps reached, counted from 1 (0 before the first starts). */
  step: number;
  steps: number;
  module: string;
  reason: string;
  created: string;
  start?: string;
  completion?: string;
  resourceVersion: string;
}

/** A scenario (CascadeAutoOperator) as the list of scenarios shows it. */
export interface ScenarioSummary {
  key: string;
  namespace: string;
  name: string;
  modules: string[];
  maxConcurrentRuns?: number;
  active: number;
  queued: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  queue: string[];
  holders: string[];
  resourceVersion: string;
}

/** The runs of the list's first screen: the page shows this many at once. */
export const FIRST_SCREEN = 100;

/**
 * The first message of the stream: everything known now, but for the runs.
 * It carries the newest FIRST_SCREEN runs, newest first, and the count of all.
 * When there are more, a `rest` message follows at once with the others.
 */
export interface Snapshot {
  scope: { namespace?: string; allNamespaces: boolean };
  runs: RunSummary[];
  /** How many runs there are. */
  total: number;
  scenarios: ScenarioSummary[];
  /** What the API server refused (kubectl's words), when the watch could not list. */
  errors: string[];
}

/** Right after a snapshot with fewer runs than its total: the other runs. */
export interface SnapshotRest {
  runs: RunSummary[];
}

/** Then, at most every 100 ms, what changed since the last message. */
export interface Changes {
  runs: RunSummary[];
  deletedRuns: string[];
  scenarios: ScenarioSummary[];
  deletedScenarios: string[];
  errors: string[];
}

/** The answer to a cancel or resume. */
export interface ActionAnswer {
  /** done: the run shows it; nothing: it changed nothing; pending: not shown yet; error: refused. */
  state: 'done' | 'nothing' | 'pending' | 'error';
  message: string;
  /** The API server's HTTP status when it refused. */
  status?: number;
}

/** The header that carries the per-start token on an action. */
export const TOKEN_HEADER = 'x-cascade-token';

/** The meta element of the page that holds the token. */
export const TOKEN_META = 'cascade-token';

export const runKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** Newest first (creation time, then name), as `kubectl cascade list`. */
export function newestFirst(a: RunSummary, b: RunSummary): number {
  // Plain comparisons: ISO times and Kubernetes names sort by code unit, and localeCompare is far slower on 10,000 runs.
  if (a.created !== b.created) return a.created < b.created ? 1 : -1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The `n` newest of `runs`, newest first, in one pass: no sort of them all. */
export function newestOf(runs: Iterable<RunSummary>, n: number): RunSummary[] {
  const top: RunSummary[] = [];
  for (const r of runs) {
    if (top.length === n && newestFirst(r, top[n - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (newestFirst(top[mid]!, r) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, r);
    if (top.length > n) top.pop();
  }
  return top;
}

/** A Kubernetes Event about the run. */
export interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
  /** Last time it happened (ISO). */
  time: string;
  object: string;
}

/** A Job of the run, as the API server has it now. */
export interface JobView {
  name: string;
  step: string;
  attempt: string;
  active: number;
  succeeded: number;
  failed: number;
  start?: string;
  completion?: string;
  /** When its pod first ran a container, while the API server has the pod: the end of the wait for it. */
  podStarted?: string;
}

/** GET /api/runs/<ns>/<name>: the run, its Events and its Jobs. */
export interface RunDetail {
  run: unknown;
  events: EventView[];
  jobs: JobView[];
  /** What the API server refused while reading the Events or Jobs. */
  errors: string[];
}

/** GET /api/runs/<ns>/<name>/logs?step=N[&attempt=M]: each pod of the step's Job and its log. */
export interface StepLogs {
  jobName: string;
  pods: { name: string; log?: string; error?: string }[];
  /** Said when the Job has no pod (e.g. its run ended, and its Jobs were deleted). */
  gone?: string;
}

/** Runs that ended in one hour, by outcome. */
export interface HourCount {
  /** The hour's start (ISO). */
  hour: string;
  Succeeded: number;
  Failed: number;
  Cancelled: number;
}

/** A module's durations (ms) over the runs that ran it, shortest first. */
export interface ModuleDurations {
  module: string;
  durations: number[];
}

/** GET /api/scenarios/<ns>/<name>: the scenario, and what its runs tell. */
export interface ScenarioDetail {
  scenario: ScenarioSummary;
  perHour: HourCount[];
  modules: ModuleDurations[];
}
