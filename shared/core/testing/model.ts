// A pure model of one run's world for the core's property tests. It holds the
// stored CascadeRun, whose resourceVersion makes a stale write conflict; the
// Jobs, where an existing name is refused; and the slot changes written on the
// CascadeAutoOperator. It acts in the engine's order (shared/engine/run/reconcile.ts and
// finish-run.ts): create Jobs, write status, delete Jobs, transitions, release
// the end's slot, mark it released, send the run-end event (with a K_SINK), mark it
// notified. Any delivery may stop ("crash") between two of those steps, and a
// decision may be made now and acted on later (another replica, paused),
// against a world that moved on. It also records what a property needs to
// judge the core independently of it: which steps some fact showed succeeded,
// every Job creation, every slot change written. The counters are the run's tally.
import type { CascadeRun, CascadeRunStatus, RunPhase } from '../../api/cascade-run.ts';
import { setSlotReleased } from '../../api/slot-marks.ts';
import type { SlotChange } from '../concurrency-limit.ts';
import { runState, tally, type Counts } from '../tally.ts';
import { decide } from '../decide.ts';
import type { ObservedJob } from '../observed-job.ts';
import type { Decision, Fact, Refusal, Transition } from '../types.ts';
import { RUN, SETTINGS, run as newRun } from './fixtures.ts';

/** Where a delivery stops: after the Jobs are created, after the status write, after the deletes, after the end's slot is released, before the run-end event is sent, after it is sent. */
export type Crash = 'none' | 'afterCreate' | 'afterWrite' | 'afterDelete' | 'afterRelease' | 'beforeSend' | 'afterSend';

export interface Creation {
  name: string;
  step: number;
  /** Each step's "some fact showed it succeeded" when the creation was decided. */
  evidence: boolean[];
  /** A stored status recorded the uid of a Job of this name before this one was created. */
  recorded: boolean;
  /** Decided from a run that was no longer the stored one. */
  stale: boolean;
}

/** A decision made (loaded, decided) and not yet acted on. */
export interface Snapshot {
  rv: number;
  fact: Fact;
  refused: Refusal | undefined;
  decision: Decision;
  evidence: boolean[];
}

export interface Model {
  names: string[];
  /** Undefined until a run request created it. */
  run: CascadeRun | undefined;
  rv: number;
  jobs: ObservedJob[];
  /** Some fact showed this step succeeded: its Job completed, or its module said so after its Job existed. */
  evidence: boolean[];
  /** Job names whose uid a stored status ever recorded. */
  recorded: Set<string>;
  creations: Creation[];
  /** Slot changes written, with the stored run's phase then. */
  slotChanges: Array<SlotChange & { runPhase: RunPhase | undefined }>;
  /** Transitions of decisions whose status was written. */
  transitions: Transition[];
  /** Decisions made and not yet acted on. */
  pending: Snapshot[];
  /** Every decision with the stored status it was made from. */
  decisions: Array<{ from: CascadeRunStatus | undefined; decision: Decision }>;
  /** A step whose Job the API server refuses as invalid. */
  refusedStep: number | undefined;
  clock: number;
  /** A K_SINK is set: the run's end owes a run-end event. */
  sink: boolean;
  /** The phase of each run-end event sent, in order. */
  sent: string[];
}

export function model(names: string[], refusedStep?: number, sink = false): Model {
  return {
    names,
    run: undefined,
    rv: 0,
    jobs: [],
    evidence: names.map(() => false),
    recorded: new Set(),
    creations: [],
    slotChanges: [],
    transitions: [],
    pending: [],
    decisions: [],
    refusedStep,
    clock: 0,
    sink,
    sent: [],
  };
}

export const nowOf = (m: Model) => new Date(Date.UTC(2026, 10, 29, 12, 0, m.clock)).toISOString();

function changeSlot(m: Model, change: SlotChange): void {
  m.slotChanges.push({ ...change, runPhase: m.run?.status?.phase });
}

/** The operator's counters as the writer of the counters computes them from the run (tally.ts). */
export function countersOf(m: Model): Counts {
  const state = m.run && runState(m.run, 'scenario');
  return tally(state ? [state] : []);
}

/** Loads the run and its Jobs and decides, as reconcile.ts does. */
export function load(m: Model, run: CascadeRun, fact: Fact, refused?: Refusal): Snapshot {
  const decision = decide({ run, jobs: m.jobs, fact, now: nowOf(m), settings: { ...SETTINGS, sink: m.sink }, refused });
  m.decisions.push({ from: run.status, decision });
  return { rv: m.rv, fact, refused, decision, evidence: [...m.evidence] };
}

function creates(d: Decision): boolean {
  return d.actions.some((a) => a.type === 'CreateJob');
}

/** Creates the decided Jobs; returns the step of a Job the API server refused. */
function createJobs(m: Model, s: Snapshot): number | undefined {
  for (const a of s.decision.actions) {
    if (a.type !== 'CreateJob') continue;
    if (a.step === m.refusedStep) return a.step;
    const name = a.job.metadata?.name ?? '';
    if (m.jobs.some((j) => j.name === name)) continue;
    m.creations.push({
      name,
      step: a.step,
      evidence: s.evidence,
      recorded: m.recorded.has(name),
      stale: s.rv !== m.rv && s.rv !== m.rv - 1,
    });
    const uid = `${name}#${m.creations.length}`;
    // Its uid is recorded by the next decision that sees it: the status was written before it.
    m.jobs.push({ name, uid, run: RUN, step: a.step, state: 'Active', startTime: nowOf(m), deleting: false });
  }
  return undefined;
}

function writeStatus(m: Model, status: CascadeRunStatus): void {
  if (m.run) m.run = { ...m.run, status };
  m.rv++;
  for (const rec of status.modules ?? []) if (rec.jobUid !== undefined) m.recorded.add(rec.jobName);
}

/** After the status write: deletes, transitions, the end's slot released and marked so, the event sent and marked so, each unless the crash came first. */
function afterWrite(m: Model, d: Decision, crash: Crash): void {
  const deletes = new Set(d.actions.flatMap((a) => (a.type === 'DeleteJob' ? [a.name] : [])));
  const ofRun = d.actions.flatMap((a) => (a.type === 'DeleteRunJobs' ? [a] : []));
  m.jobs = m.jobs.filter(
    (j) =>
      !deletes.has(j.name) && !ofRun.some((a) => !(j.step === a.keep?.step && (j.attempt ?? 1) === a.keep.attempt)),
  );
  if (crash === 'afterDelete') return;
  m.transitions.push(...d.transitions);
  const finish = d.actions.find((a) => a.type === 'FinishRun');
  if (finish) {
    changeSlot(m, { kind: 'ended', run: RUN });
    if (crash === 'afterRelease') return;
    // The marks only move forward (finish-run.ts): a run notified meanwhile stays notified.
    const status = { ...m.run?.status, notified: m.run?.status?.notified === true || !finish.eventOwed };
    setSlotReleased(status, true);
    writeStatus(m, status);
  }
  const send = d.actions.find((a) => a.type === 'SendRunEndEvent');
  if (!send || crash === 'beforeSend') return;
  m.sent.push(send.phase);
  if (crash === 'afterSend') return;
  writeStatus(m, { ...m.run?.status, notified: true });
}

/** Creates the Jobs: 'go' on, or how the attempt ends (refused, or a crash after the create). */
function createStep(m: Model, s: Snapshot, crash: Crash): 'go' | 'done' | Refusal {
  const refused = createJobs(m, s);
  if (refused !== undefined) return { step: refused, message: 'the API server refused the Job' };
  return crash === 'afterCreate' ? 'done' : 'go';
}

/** Acts on one decision; 'retry' when the fact must be decided again (write conflict), or the Job refused. */
function act(m: Model, s: Snapshot, crash: Crash): 'done' | 'retry' | Refusal {
  const { decision: d } = s;
  if (d.verdict === 'unknown-module' || d.verdict === 'not-started') return 'done';
  // The status first, as reconcile.ts: its resourceVersion refuses a stale copy before it creates a Job.
  if (d.changed || creates(d)) {
    if (s.rv !== m.rv) return 'retry';
    writeStatus(m, d.status);
  }
  if (crash === 'afterWrite') return 'done';
  const created = createStep(m, s, crash);
  if (created !== 'go') return created;
  afterWrite(m, d, crash);
  return 'done';
}

/** One delivery of `fact` through the engine's loop, from `first` (a decision made earlier) when given. */
export function reconcile(m: Model, fact: Fact, crash: Crash, first?: Snapshot): void {
  let next: Snapshot | undefined = first;
  let refused = first?.refused;
  for (let attempt = 0; attempt < 10 && m.run; attempt++) {
    const s = next ?? load(m, m.run, fact, refused);
    next = undefined;
    const outcome = act(m, s, crash);
    if (outcome === 'done') return;
    if (outcome !== 'retry') refused = outcome;
  }
}

/** A run request, as start-run.ts: the run created once, its start written, then moved (either may be lost to a crash). */
export function runRequest(m: Model, started: boolean, crash: Crash | 'skip'): void {
  m.run ??= newRun(m.names);
  if (started) changeSlot(m, { kind: 'started', run: RUN });
  if (crash !== 'skip') reconcile(m, { kind: 'Observe' }, crash);
}

export interface Result {
  modulename: string;
  moduleresult: string;
  /** What the value means, as the test that chose it knows (not as the core reads it). */
  says: 'success' | 'failure' | 'info';
}

/** A module's result is heard: it shows its step succeeded only if that step was started (its status written, or its Job created). */
export function hear(m: Model, r: Result): Fact {
  const step = m.names.indexOf(r.modulename);
  // The status is written before the Job is created (reconcile.ts): a step the stored status shows
  // started is as good as one whose Job exists, for a sender that trusts results.
  const started = m.run?.status?.modules?.[step]?.phase === 'Running';
  if (r.says === 'success' && (started || m.creations.some((c) => c.step === step))) m.evidence[step] = true;
  return { kind: 'ModuleResult', modulename: r.modulename, moduleresult: r.moduleresult };
}

export function moduleResult(m: Model, r: Result, crash: Crash): void {
  reconcile(m, hear(m, r), crash);
}

/** The Job of `step` changes: its pod ends, or the Job disappears (TTL, a user); nothing happens when there is no such Job. */
export function jobChange(m: Model, step: number, change: 'Succeeded' | 'Failed' | 'gone'): void {
  const job = m.jobs.find((j) => j.step === step);
  if (!job) return;
  if (change === 'gone') {
    m.jobs = m.jobs.filter((j) => j !== job);
    return;
  }
  if (job.state !== 'Active') return;
  m.jobs = m.jobs.map((j) => (j === job ? { ...j, state: change, completionTime: nowOf(m), done: true } : j));
  if (change === 'Succeeded') m.evidence[step] = true;
}
