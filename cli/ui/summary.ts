// A run and a scenario as the page's lists show them. Pure.
import { phaseOf, wasReached, type RunObject } from '../runs/run-object.ts';
import { runKey, type RunSummary, type ScenarioSummary } from './protocol.ts';

/** What the ui reads of a CascadeAutoOperator. */
export interface OperatorObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { scenarioconfig?: { cascademodules?: { modulename?: string }[] }; maxConcurrentRuns?: number };
  status?: {
    active?: number;
    queued?: number;
    succeeded?: number;
    failed?: number;
    cancelled?: number;
    queue?: string[];
    holders?: string[];
  };
}

/** The runs a holder list names: a resumed run's slot is `<run>/r<N>` ("/" is in no object name), shown as its run. */
export function runsHolding(holders: readonly string[]): string[] {
  return [...new Set(holders.map((slot) => slot.split('/')[0] ?? slot))];
}

const iso = (t: string | Date | undefined): string => (t === undefined ? '' : new Date(t).toISOString());

/** Steps reached, counted from 1: the current step, else the last record reached. */
function stepReached(run: RunObject): number {
  const records = run.status?.modules ?? [];
  const current = run.status?.currentStep ?? records.filter(wasReached).at(-1)?.step;
  return current === undefined ? 0 : current + 1;
}

const stepsOf = (run: RunObject): number => run.spec?.modules?.length ?? run.status?.modules?.length ?? 0;

function runIdentity(run: RunObject): Pick<RunSummary, 'key' | 'namespace' | 'name' | 'scenario' | 'iuid'> {
  const namespace = run.metadata.namespace ?? '';
  const name = run.metadata.name ?? '';
  return {
    key: runKey(namespace, name),
    namespace,
    name,
    scenario: run.spec?.scenarioname ?? '',
    iuid: run.spec?.pid ?? '',
  };
}

function runTimes(run: RunObject): Pick<RunSummary, 'created' | 'start' | 'completion'> {
  const { startTime, completionTime } = run.status ?? {};
  return {
    created: iso(run.metadata.creationTimestamp),
    ...(startTime ? { start: startTime } : {}),
    ...(completionTime ? { completion: completionTime } : {}),
  };
}

export function runSummary(run: RunObject): RunSummary {
  const status = run.status ?? {};
  return {
    ...runIdentity(run),
    phase: phaseOf(run),
    step: stepReached(run),
    steps: stepsOf(run),
    module: status.currentModule ?? '',
    reason: status.conditions?.find((c) => c.type === 'Succeeded')?.reason ?? '',
    ...runTimes(run),
    resourceVersion: run.metadata.resourceVersion ?? '',
  };
}

const COUNTERS = ['active', 'queued', 'succeeded', 'failed', 'cancelled'] as const;

function counters(op: OperatorObject): Pick<ScenarioSummary, (typeof COUNTERS)[number]> {
  const status = op.status ?? {};
  return Object.fromEntries(COUNTERS.map((c) => [c, status[c] ?? 0])) as Pick<
    ScenarioSummary,
    (typeof COUNTERS)[number]
  >;
}

export function scenarioSummary(op: OperatorObject): ScenarioSummary {
  const { metadata, spec = {}, status = {} } = op;
  const namespace = metadata.namespace ?? '';
  const name = metadata.name ?? '';
  const limit = spec.maxConcurrentRuns;
  return {
    key: runKey(namespace, name),
    namespace,
    name,
    modules: (spec.scenarioconfig?.cascademodules ?? []).map((m) => m.modulename ?? ''),
    ...(limit === undefined ? {} : { maxConcurrentRuns: limit }),
    ...counters(op),
    queue: status.queue ?? [],
    holders: runsHolding(status.holders ?? []),
    resourceVersion: metadata.resourceVersion ?? '',
  };
}
