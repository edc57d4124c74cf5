// A decision in the making: a private copy of the run's status that the core's
// steps change, and the actions and transitions they add. Only decide() makes
// one, so the core stays pure from the outside.
import { isTerminalPhase, type CascadeRunStatus, type ConditionReason, type ModuleRecord } from '../api/cascade-run.ts';
import { jobName } from '../names.ts';
import { setSucceeded } from './conditions.ts';
import type { RunRef } from './job-manifest.ts';
import { sortJobs, type IgnoredJob } from './job-identity.ts';
import type { ObservedJob } from './observed-job.ts';
import type { Action, DecideInput, Transition, Verdict } from './types.ts';

export interface Draft {
  /** What decide() was given, with `jobs` cut down to the run's own (job-identity.ts). */
  input: DecideInput;
  /** Jobs with a name Cascade gave but another uid: cleanup removes them. */
  strays: ObservedJob[];
  /** Observed Jobs not taken as their step's. */
  ignored: IgnoredJob[];
  run: RunRef;
  status: CascadeRunStatus;
  records: ModuleRecord[];
  actions: Action[];
  transitions: Transition[];
  verdict: Verdict;
  /** Decision.unseenJob. */
  unseenJob: number | undefined;
}

export function seconds(from: string | undefined, to: string): number | undefined {
  if (!from) return undefined;
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
}

function initialRecords(input: DecideInput): ModuleRecord[] {
  const { run, settings } = input;
  const names = (run.spec.cascademodules ?? []).map((m) => m.modulename);
  return names.map((name, step) => ({
    step,
    name,
    jobName: jobName(settings.scenarioName, run.metadata.name, names, step),
    phase: 'Pending',
  }));
}

/** `statusJson`: the run's status as JSON, parsed into the draft's own deep copy. */
function initialStatus(input: DecideInput, statusJson: string): CascadeRunStatus {
  const { run, now } = input;
  const status = JSON.parse(statusJson) as CascadeRunStatus;
  status.observedGeneration = run.metadata.generation ?? status.observedGeneration;
  status.result ??= [];
  status.phase ??= 'Pending';
  status.startTime ??= now;
  if (status.modules?.length !== (run.spec.cascademodules ?? []).length) status.modules = initialRecords(input);
  if (!status.conditions?.length)
    setSucceeded(status, { status: 'Unknown', reason: 'Pending', message: 'waiting for the first module' }, now);
  return status;
}

/**
 * `statusJson`: the run's status as JSON (decide() has it already, to tell
 * whether the status changed). A status is JSON, as the API server stores it,
 * so parsing it is a deep copy, and cheaper than structuredClone (the janitor
 * decides every run it lists).
 */
export function newDraft(input: DecideInput, statusJson: string): Draft {
  const { run } = input;
  const status = initialStatus(input, statusJson);
  const modules = run.spec.cascademodules ?? [];
  const ref: RunRef = {
    name: run.metadata.name,
    uid: run.metadata.uid ?? '',
    iuid: run.spec.pid,
    turlinfo: run.spec.turlinfo ?? '',
    modules,
  };
  const records = status.modules ?? [];
  const { own, strays, ignored } = sortJobs(records, ref.name, input.jobs);
  return {
    input: { ...input, jobs: own },
    strays,
    ignored,
    run: ref,
    status,
    records,
    actions: [],
    transitions: [],
    verdict: 'observed',
    unseenJob: undefined,
  };
}

export function isTerminal(d: Draft): boolean {
  return isTerminalPhase(d.status.phase);
}

export function jobOf(d: Draft, step: number): ObservedJob | undefined {
  const attempt = d.records[step]?.attempt ?? 1;
  return d.input.jobs.find((j) => j.step === step && j.run === d.run.name && (j.attempt ?? 1) === attempt);
}

function record(d: Draft, step: number): ModuleRecord {
  const rec = d.records[step];
  if (!rec) throw new RangeError(`no step ${step} in run ${d.run.name}`);
  return rec;
}

export function markRunning(d: Draft, step: number, at: string): void {
  const rec = record(d, step);
  const total = d.records.length;
  rec.phase = 'Running';
  rec.startTime = at;
  d.status.phase = 'Running';
  d.status.currentStep = step;
  d.status.currentModule = rec.name;
  const message = `module ${rec.name} (step ${step + 1} of ${total}) is running`;
  setSucceeded(d.status, { status: 'Unknown', reason: 'Running', message }, d.input.now);
  d.transitions.push({ kind: 'ModuleStarted', step, module: rec.name, message: `started Job ${rec.jobName}` });
}

export function completeStep(d: Draft, step: number, at: string | undefined): void {
  const rec = record(d, step);
  rec.phase = 'Succeeded';
  rec.completionTime = at ?? d.input.now;
  const durationSeconds = seconds(rec.startTime, rec.completionTime);
  d.transitions.push({
    kind: 'ModuleSucceeded',
    step,
    module: rec.name,
    message: `module ${rec.name} succeeded`,
    durationSeconds,
  });
}

export function failStep(d: Draft, step: number, reason: ConditionReason, message: string): void {
  const rec = record(d, step);
  const { now } = d.input;
  rec.phase = 'Failed';
  rec.completionTime ??= now;
  rec.reason = reason;
  rec.message = message;
  d.transitions.push({
    kind: 'ModuleFailed',
    step,
    module: rec.name,
    reason,
    message,
    durationSeconds: seconds(rec.startTime, rec.completionTime),
  });
  failRun(d, reason, `module ${rec.name} (step ${step + 1}): ${message}`, step);
}

export function failRun(d: Draft, reason: ConditionReason, message: string, step?: number): void {
  const { now } = d.input;
  d.status.phase = 'Failed';
  d.status.info = 'Failed';
  d.status.completionTime = now;
  if (step !== undefined) {
    d.status.currentStep = step;
    d.status.currentModule = d.records[step]?.name;
  }
  setSucceeded(d.status, { status: 'False', reason, message }, now);
  d.transitions.push({ kind: 'RunFailed', reason, message, durationSeconds: seconds(d.status.startTime, now) });
}

export function succeedRun(d: Draft): void {
  const { now, settings } = d.input;
  const { iuid } = d.run;
  d.status.phase = 'Succeeded';
  d.status.info = `${settings.outMinioAddress}${settings.scenarioName}/${iuid}/${iuid}-final.zip`;
  d.status.completionTime = now;
  const message = `all ${d.records.length} modules succeeded`;
  setSucceeded(d.status, { status: 'True', reason: 'Succeeded', message }, now);
  d.transitions.push({ kind: 'RunSucceeded', message, durationSeconds: seconds(d.status.startTime, now) });
}
