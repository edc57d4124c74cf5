// What the fault soak checks, as pure functions of what it recorded: the
// runs as stored, each Job's creations from etcd's history, the run-end
// events the sink took, and the operator's counters. Each returns the
// violations it found, as one line each; none is the only good answer.
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { isTerminalPhase } from '../../shared/api/run-status.ts';
import { runEndEventId } from '../../shared/engine/run/finish-run.ts';

/** What the driver did to one request id. */
export interface Requested {
  iuid: string;
  /** A cancel was sent. */
  cancelled: boolean;
  /** A resume was sent once the run was seen Cancelled. */
  resumed: boolean;
}

/** One run per request id, and no run without a request. */
export function oneRunPerRequest(requested: Requested[], runs: CascadeRun[]): string[] {
  const byIuid = new Map<string, number>();
  for (const run of runs) byIuid.set(run.spec.pid, (byIuid.get(run.spec.pid) ?? 0) + 1);
  const out: string[] = [];
  for (const r of requested) {
    const n = byIuid.get(r.iuid) ?? 0;
    if (n !== 1) out.push(`request ${r.iuid}: ${n} runs`);
  }
  const asked = new Set(requested.map((r) => r.iuid));
  for (const iuid of byIuid.keys()) if (!asked.has(iuid)) out.push(`run of ${iuid}: never requested`);
  return out;
}

/** Every run ended and recorded its run-end event sent; its phase is one its history allows. */
export function endedRight(requested: Requested[], runs: CascadeRun[]): string[] {
  const asked = new Map(requested.map((r) => [r.iuid, r]));
  const out: string[] = [];
  for (const run of runs) {
    const phase = run.status?.phase;
    const name = run.metadata.name;
    if (!isTerminalPhase(phase) || run.status?.notified !== true) {
      out.push(`${name}: not ended (${phase ?? 'no phase'}, notified ${String(run.status?.notified)})`);
      continue;
    }
    const r = asked.get(run.spec.pid);
    const allowed = r?.cancelled && !r.resumed ? ['Succeeded', 'Cancelled'] : ['Succeeded'];
    if (!allowed.includes(phase)) out.push(`${name}: ${phase}, expected ${allowed.join(' or ')}`);
  }
  return out;
}

/** Each Job name created once: one Job per step attempt, so no module ran twice for one attempt. */
export function jobsCreatedOnce(created: Map<string, number>): string[] {
  return [...created].filter(([, n]) => n !== 1).map(([name, n]) => `Job ${name}: created ${n} times`);
}

/** The operator's counters equal the runs' outcomes; nothing holds a slot or waits. */
export function countersExact(op: CascadeAutoOperator, runs: CascadeRun[]): string[] {
  const by = (phase: string) => runs.filter((r) => r.status?.phase === phase).length;
  const s = op.status ?? {};
  const want = { active: 0, queued: 0, succeeded: by('Succeeded'), failed: by('Failed'), cancelled: by('Cancelled') };
  const got = (k: keyof typeof want) => s[k] ?? 0;
  const out = Object.entries(want)
    .filter(([k, v]) => got(k as keyof typeof want) !== v)
    .map(([k, v]) => `operator ${k}: ${got(k as keyof typeof want)}, expected ${v}`);
  if ((s.holders ?? []).length > 0) out.push(`operator holders left: ${(s.holders ?? []).join(', ')}`);
  if ((s.queue ?? []).length > 0) out.push(`operator queue left: ${(s.queue ?? []).join(', ')}`);
  return out;
}

/** The run-end event of each run's final outcome reached the sink, under its stable id. */
export function runEndEventsDelivered(runs: CascadeRun[], received: ReadonlySet<string>): string[] {
  return runs
    .flatMap((run) => {
      const phase = run.status?.phase;
      return isTerminalPhase(phase) ? [{ run, id: runEndEventId(run, phase) }] : [];
    })
    .filter(({ id }) => !received.has(id))
    .map(({ run, id }) => `${run.metadata.name}: run-end event ${id} never reached the sink`);
}

/** Milliseconds from each step's end to the next step's start, from the runs' status. */
export function stepGaps(runs: CascadeRun[]): number[] {
  const gaps: number[] = [];
  for (const run of runs) {
    const modules = run.status?.modules ?? [];
    for (let i = 1; i < modules.length; i++) {
      const ended = Date.parse(modules[i - 1]!.completionTime ?? '');
      const started = Date.parse(modules[i]!.startTime ?? '');
      if (Number.isFinite(ended) && Number.isFinite(started) && started >= ended) gaps.push(started - ended);
    }
  }
  return gaps;
}

/** One Job as a watch over the whole soak saw it, by its uid. */
export interface JobSeen {
  uid: string;
  name: string;
  run: string;
  step: number;
  /** When it was first seen, and first seen Complete: Date.now() values. */
  seen: number;
  completeSeen?: number;
}

/** Each step's Job made once: one uid per Job name, and one Job per run and step. */
export function stepsMadeOnce(jobs: JobSeen[]): string[] {
  const uids = new Map<string, Set<string>>();
  const names = new Map<string, Set<string>>();
  for (const job of jobs) {
    uids.set(job.name, (uids.get(job.name) ?? new Set()).add(job.uid));
    const step = `${job.run} step ${job.step}`;
    names.set(step, (names.get(step) ?? new Set()).add(job.name));
  }
  return [
    ...[...uids].filter(([, u]) => u.size !== 1).map(([name, u]) => `Job ${name}: made ${u.size} times`),
    ...[...names].filter(([, n]) => n.size !== 1).map(([step, n]) => `${step}: ${n.size} Jobs, ${[...n].join(', ')}`),
  ];
}

/** Every run ended (its status's completionTime) within `deadlineMs` of its request's first send. */
export function endedWithin(sent: ReadonlyMap<string, number>, runs: CascadeRun[], deadlineMs: number): string[] {
  const out: string[] = [];
  for (const run of runs) {
    const from = sent.get(run.spec.pid);
    const ended = Date.parse(run.status?.completionTime ?? '');
    if (from === undefined || !Number.isFinite(ended)) continue;
    if (ended - from > deadlineMs) out.push(`${run.metadata.name}: ended ${ended - from} ms after its request`);
  }
  return out;
}

/**
 * For each fault's time, the milliseconds until the next step moved through
 * the whole event path after it: the first next-step Job seen whose previous
 * step's Job was seen Complete after the fault. Undefined when none did.
 */
export function faultToNextStep(faults: number[], jobs: JobSeen[]): Array<number | undefined> {
  const byStep = new Map(jobs.map((j) => [`${j.run}/${j.step}`, j]));
  const moves = jobs.flatMap((job) => {
    const before = byStep.get(`${job.run}/${job.step - 1}`)?.completeSeen;
    return before === undefined ? [] : [{ completed: before, next: job.seen }];
  });
  return faults.map((at) => {
    const after = moves.filter((m) => m.completed >= at).map((m) => m.next - at);
    return after.length > 0 ? Math.min(...after) : undefined;
  });
}

/** Milliseconds from each step's Job seen Complete to the run's next Job seen. */
export function handOffs(jobs: JobSeen[]): number[] {
  const byStep = new Map(jobs.map((j) => [`${j.run}/${j.step}`, j]));
  return jobs.flatMap((job) => {
    const before = byStep.get(`${job.run}/${job.step - 1}`)?.completeSeen;
    return before === undefined ? [] : [Math.max(0, job.seen - before)];
  });
}
