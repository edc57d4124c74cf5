// Random sequences of facts for one run, played on a pure model of the API
// server and of the engine's order of acting (testing/model.ts): module
// results (success, failure, information; for the current, a past, a future
// or an unknown module), Job changes (complete, failed, gone), looks again,
// run requests sent again, deliveries that stop between two actions, and
// decisions acted on late by another replica. After every fact the
// invariants hold; once every fact is delivered, the run has ended, its slot
// released after its end, and a run given only its clean facts ends as a clean run does.
// fast-check prints the seed and path of a failure: replay it with
// FC_SEED=<seed> FC_PATH=<path> npx vitest run --project unit shared/core/decide.property.test.ts
// (FC_RUNS=<n> plays more sequences than the 300 of each property.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTerminalPhase, type CascadeRunStatus } from '../api/cascade-run.ts';
import {
  countersOf,
  hear,
  jobChange,
  load,
  model,
  moduleResult,
  reconcile,
  runRequest,
  type Crash,
  type Model,
  type Result,
} from './testing/model.ts';
import type { Fact } from './types.ts';
import { isSlotReleased } from './run-end.ts';

type Says = Result['says'];
type Word = { moduleresult: string; says: Says };
type Change = 'Succeeded' | 'Failed' | 'gone';
type Heard = { rel: number; word: Word } | 'observe';

type Cmd =
  | { t: 'request'; started: boolean; crash: Crash | 'skip' }
  | { t: 'observe'; crash: Crash }
  | { t: 'result'; rel: number; word: Word; crash: Crash }
  | { t: 'job'; rel: number; change: Change }
  /** Another replica loads and decides now, and acts later (`resume`). */
  | { t: 'pause'; heard: Heard }
  | { t: 'resume'; index: number; crash: Crash };

const SUCCESS: Word = { moduleresult: 'success', says: 'success' };
const WORDS: Word[] = [
  SUCCESS,
  { moduleresult: 'Completed', says: 'success' },
  { moduleresult: ' OK ', says: 'success' },
  { moduleresult: 'fail', says: 'failure' },
  { moduleresult: 'Error', says: 'failure' },
  { moduleresult: '50% done', says: 'info' },
  { moduleresult: 'uploading', says: 'info' },
];
const CRASHES: Crash[] = [
  'none',
  'none',
  'afterCreate',
  'afterWrite',
  'afterDelete',
  'afterRelease',
  'beforeSend',
  'afterSend',
];

interface Kinds {
  words: fc.Arbitrary<Word>;
  changes: fc.Arbitrary<Change>;
}
const CLEAN: Kinds = { words: fc.constant(SUCCESS), changes: fc.constant('Succeeded') };
// Mostly facts that move the run on, so that sequences reach the later steps and the end.
const ANY: Kinds = {
  words: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...WORDS.filter((w) => w.says === 'success')) },
    fc.constantFrom(...WORDS),
  ),
  changes: fc.oneof(
    { weight: 6, arbitrary: fc.constant('Succeeded' as const) },
    fc.constantFrom<Change>('Failed', 'gone'),
  ),
};

/** Mostly the current step; else a past one, a future one, or none of the scenario's. */
const near = (min: number, max: number) => fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min, max }));

function commands(k: Kinds): fc.Arbitrary<Cmd[]> {
  const crash = fc.constantFrom(...CRASHES);
  const rel = near(-2, 3);
  const heard: fc.Arbitrary<Heard> = fc.oneof(fc.constant('observe' as const), fc.record({ rel, word: k.words }));
  const cmd: fc.Arbitrary<Cmd> = fc.oneof(
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant('request' as const),
        started: fc.boolean(),
        crash: fc.oneof(crash, fc.constant('skip' as const)),
      }),
    },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('observe' as const), crash }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('result' as const), rel, word: k.words, crash }) },
    { weight: 4, arbitrary: fc.record({ t: fc.constant('job' as const), rel: near(-1, 1), change: k.changes }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('pause' as const), heard }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('resume' as const), index: fc.nat(), crash }) },
  );
  return fc.array(cmd, { maxLength: 80, size: 'large' });
}

const currentStep = (m: Model) => m.run?.status?.currentStep ?? 0;

function ran(m: Model, step: number): boolean {
  return m.creations.some((c) => c.step === step);
}

function resultOf(m: Model, rel: number, word: Word): Result {
  return { modulename: m.names[currentStep(m) + rel] ?? 'not-in-the-scenario', ...word };
}

function factOf(m: Model, heard: Heard): Fact {
  // A module posts from its pod: a step whose Job was never created is only looked at.
  if (heard === 'observe' || !ran(m, currentStep(m) + heard.rel)) return { kind: 'Observe' };
  return hear(m, resultOf(m, heard.rel, heard.word));
}

function play(m: Model, c: Cmd): void {
  m.clock++;
  switch (c.t) {
    case 'request':
      return runRequest(m, c.started, c.crash);
    case 'observe':
      return reconcile(m, { kind: 'Observe' }, c.crash);
    case 'result':
      // A module posts from its pod: no result comes from a step whose Job was never created.
      if (!ran(m, currentStep(m) + c.rel)) return;
      return moduleResult(m, resultOf(m, c.rel, c.word), c.crash);
    case 'job':
      return jobChange(m, currentStep(m) + c.rel, c.change);
    case 'pause':
      if (m.run) m.pending.push(load(m, m.run, factOf(m, c.heard)));
      return;
    case 'resume': {
      const [s] = m.pending.splice(c.index % Math.max(1, m.pending.length), 1);
      if (s) reconcile(m, s.fact, c.crash, s);
    }
  }
}

const isTerminal = (s: CascadeRunStatus | undefined) => s?.phase === 'Succeeded' || s?.phase === 'Failed';
const ended = (m: Model) => isTerminal(m.run?.status) && Boolean(m.run?.status?.notified);

/** What a terminal run shows, which nothing may change afterwards. */
function terminalView(s: CascadeRunStatus | undefined) {
  const c = s?.conditions?.find((x) => x.type === 'Succeeded');
  const steps = s?.modules?.map((r) => `${r.phase}:${r.reason ?? ''}:${r.completionTime ?? ''}`);
  return {
    phase: s?.phase,
    info: s?.info,
    completionTime: s?.completionTime,
    condition: [c?.status, c?.reason, c?.message],
    steps,
  };
}

/** What was there before a fact: the stored status, how many creations and decisions. */
interface Before {
  status: CascadeRunStatus | undefined;
  creations: number;
  decisions: number;
}
const before = (m: Model): Before => ({
  status: m.run?.status,
  creations: m.creations.length,
  decisions: m.decisions.length,
});

/** A cheap check for the hot loop (thousands per property): throws with the detail only when it fails. */
function must(ok: boolean, message: string, detail?: unknown): void {
  if (!ok) throw new Error(`${message}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
}

/** A step started whose Job was never seen: its decider may have died before it created the Job. */
function unseenJob(rec: { phase: string; jobUid?: string | undefined } | undefined): boolean {
  return rec?.phase === 'Running' && rec.jobUid === undefined;
}

/** No Job for a step before some fact showed every earlier step succeeded; none decided again once its uid was recorded. */
function checkJobs(m: Model, b: Before): void {
  for (const c of m.creations.slice(b.creations)) {
    must(
      !c.evidence.slice(0, c.step).includes(false),
      `Job ${c.name} created before its predecessors succeeded`,
      c.evidence,
    );
    // The status is written before the Job is created: a decision acted on late is refused first.
    must(!c.stale, `Job ${c.name} created from a stale copy of the run`);
    must(!c.recorded, `Job ${c.name} created again after a status recorded its uid`);
  }
  for (const { from, decision } of m.decisions.slice(b.decisions)) {
    for (const a of decision.actions) {
      if (a.type === 'CreateJob')
        must(
          !from?.modules || from.modules[a.step]?.phase === 'Pending' || unseenJob(from.modules[a.step]),
          `step ${a.step} decided for creation again once recorded`,
          from?.modules,
        );
      if (a.type === 'FinishRun') must(!isSlotReleased(from), 'a run whose slot was released was finished again');
    }
  }
}

/** Every invariant, after each fact, over what the fact added. */
function checkInvariants(m: Model, b: Before): void {
  checkJobs(m, b);
  const modules = m.run?.status?.modules ?? [];
  modules.forEach((rec, k) => {
    must(
      k === 0 || rec.phase === 'Pending' || modules[k - 1]?.phase === 'Succeeded',
      `step ${k} ${rec.phase} before step ${k - 1} succeeded`,
      modules,
    );
  });
  if (isTerminal(b.status)) expect(terminalView(m.run?.status), 'a terminal run moved').toEqual(terminalView(b.status));
  checkCounters(m);
  checkTransitions(m);
  must(
    m.sent.every((phase) => phase === m.run?.status?.phase),
    'a run-end event sent with another phase than the run has',
    m.sent,
  );
  must(m.sink || m.sent.length === 0, 'a run-end event sent without a K_SINK', m.sent);
}

function checkCounters(m: Model): void {
  must(
    m.slotChanges.every((c) => c.kind !== 'ended' || isTerminalPhase(c.runPhase)),
    "an end's slot released before the run ended",
    m.slotChanges,
  );
}

function checkTransitions(m: Model): void {
  const keys = m.transitions.map((t) => (t.kind.startsWith('Run') ? 'Run' : `${t.kind}:${t.step}`));
  const ends = m.transitions
    .filter((t) => t.kind === 'ModuleSucceeded' || t.kind === 'ModuleFailed')
    .map((t) => t.step);
  must(keys.length === new Set(keys).size, 'a transition told twice', keys);
  must(ends.length === new Set(ends).size, 'a step ended twice', keys);
}

/** Every fact eventually delivered: decisions left pending acted on, the request sent again, each current Job ends; `clean` also sends each module's success. */
function deliverEverything(m: Model, clean: boolean): void {
  const left = m.pending.splice(0);
  for (const s of left) reconcile(m, s.fact, 'none', s);
  m.clock++;
  runRequest(m, true, 'none');
  for (let i = 0; i < 3 * m.names.length + 3 && !ended(m); i++) {
    m.clock++;
    const step = currentStep(m);
    // A module posts its result only once its Job exists: its pod ran.
    if (clean && ran(m, step)) moduleResult(m, { modulename: m.names[step] ?? '', ...SUCCESS }, 'none');
    jobChange(m, step, 'Succeeded');
    reconcile(m, { kind: 'Observe' }, 'none');
  }
  if (clean)
    for (const [step, modulename] of m.names.entries())
      if (ran(m, step)) moduleResult(m, { modulename, ...SUCCESS }, 'none');
  reconcile(m, { kind: 'Observe' }, 'none');
}

function endState(m: Model) {
  const s = m.run?.status;
  return {
    phase: s?.phase,
    info: s?.info,
    notified: s?.notified,
    result: [...(s?.result ?? [])].sort(),
    condition: s?.conditions?.map((c) => `${c.type}:${c.status}:${c.reason}`),
    modules: s?.modules?.map((r) => `${r.name}:${r.phase}:${r.result ?? ''}:${r.reason ?? ''}`),
    jobs: m.jobs.map((j) => j.name).sort(),
    created: [...new Set(m.creations.map((c) => c.name))].sort(),
    counters: {
      active: countersOf(m).active,
      succeeded: countersOf(m).succeeded,
      failed: countersOf(m).failed,
      result: countersOf(m).result,
    },
  };
}

function checkEnd(m: Model): void {
  expect(ended(m), 'the run ended and was notified').toBe(true);
  // At least once with a K_SINK; notified only after a send.
  expect(m.sent.length > 0, 'the run-end event was sent').toBe(m.sink);
  const phase = m.run?.status?.phase;
  expect(new Set(m.slotChanges.map((c) => c.kind))).toEqual(new Set(['ended', 'started']));
  expect(countersOf(m).active).toBe(0);
  const kept = m.jobs.map((j) => m.run?.status?.modules?.[j.step]?.phase);
  expect(kept, 'Jobs left: only a failed run keeps its failed Job').toEqual(
    phase === 'Failed' ? kept.map(() => 'Failed') : [],
  );
  expect(m.jobs.length).toBeLessThanOrEqual(1);
}

function playAll(m: Model, cmds: Cmd[], first: Cmd): void {
  for (const c of [first, ...cmds]) {
    const b = before(m);
    play(m, c);
    checkInvariants(m, b);
  }
}

const ABC = ['a', 'b', 'c'];
const replay = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {};
const firstRequest = fc.record({
  t: fc.constant('request' as const),
  started: fc.boolean(),
  crash: fc.constantFrom(...CRASHES),
});

function cleanEnd(names: string[]) {
  const m = model(names);
  deliverEverything(m, true);
  return endState(m);
}

describe('decide: properties over random sequences of facts', () => {
  it('a clean run, played once, ends as the Go controller ended it', () => {
    expect(cleanEnd(ABC)).toMatchObject({
      phase: 'Succeeded',
      notified: true,
      jobs: [],
      modules: ['a:Succeeded:success:', 'b:Succeeded:success:', 'c:Succeeded:success:'],
      counters: { active: 0, succeeded: 1, failed: 0, result: 'Success' },
    });
    expect(cleanEnd(ABC).created).toHaveLength(3);
  });

  it(
    'any facts: invariants after each, and the run ends once, its slot released once, when all are delivered',
    { timeout: 60_000 },
    () => {
      const scenario = fc.integer({ min: 1, max: 4 }).map((n) => ['a', 'b', 'c', 'd'].slice(0, n));
      // now and then the API server refuses one step's Job (a bad template)
      const refused = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.integer({ min: 0, max: 3 }));
      fc.assert(
        fc.property(
          scenario,
          refused,
          fc.boolean(),
          firstRequest,
          commands(ANY),
          (names, refusedStep, sink, first, cmds) => {
            const m = model(names, refusedStep, sink);
            playAll(m, cmds, first);
            const b = before(m);
            deliverEverything(m, false);
            checkInvariants(m, b);
            checkEnd(m);
          },
        ),
        { numRuns: Number(process.env.FC_RUNS ?? 300), ...replay },
      );
    },
  );

  it(
    'clean facts, repeated, reordered, interrupted and acted on late: the end state of a clean run',
    { timeout: 60_000 },
    () => {
      const expected = cleanEnd(ABC);
      fc.assert(
        fc.property(firstRequest, commands(CLEAN), (first, cmds) => {
          const m = model(ABC);
          playAll(m, cmds, first);
          const b = before(m);
          deliverEverything(m, true);
          checkInvariants(m, b);
          checkEnd(m);
          expect(endState(m)).toEqual(expected);
        }),
        { numRuns: Number(process.env.FC_RUNS ?? 300), ...replay },
      );
    },
  );
});
