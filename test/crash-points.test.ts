// The crash-point test. A clean run of the seed's success scenario is
// recorded: every API write the function makes, as an HTTP proxy between the
// function and the API server sees them (test/support/api-write-proxy.ts),
// checked against the API server's audit log. Then, for each write point n,
// a new run is made while the proxy kills the function (SIGKILL) right after
// its n-th write is acknowledged, before the answer reaches it. The function
// is started again at once. The sender sends the run request again until it
// is answered 200; the Broker stand-in delivers the Job events again; when
// events are gone, the janitor finishes the run. Then, for every run: it
// ended once, Succeeded; each step's Job was created once (by uid, from a
// watch of Jobs); the counters are exact; the run-end event reached the sink
// at least once, under one stable id. The scenarios: success; module results
// before their Jobs end; a failing module; a failing module retried after a
// backoff; a run cancelled while its second module runs; a failed run
// resumed, which fails again; a second run queued behind a limit of one.
// The suite runs a sample of the points; `npm run crash-points` runs them all
// (CASCADE_CRASH_POINTS=all).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark, countByClient } from './support/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import type { CascadeModule } from '../shared/api/scenario.ts';
import type { TerminalPhase } from '../shared/api/cascade-run.ts';
import { failSecondScenario, imageModule, successScenario } from './fixtures/scenarios.ts';
import type { Write } from './support/api-write-proxy.ts';
import { killableFunction } from './support/killable-function.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post } from './support/cascade-harness.ts';
import { janitorEnv, runJanitorProcess } from './support/janitor.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';
import { recordingSink } from './support/recording-sink.ts';

const ALL = process.env.CASCADE_CRASH_POINTS === 'all';

let h: Harness;
let sink: Awaited<ReturnType<typeof recordingSink>>;
/** The function behind the write proxy, on a port that outlives it: the Broker and the sender reach each new process there. */
let fn = killableFunction();
/** What a scenario sends once the run is requested: module results, run control, more runs (their names). */
let drive: ((name: string, iuid: string) => Promise<string[] | void>) | undefined;

async function setUp(sc: Scenario): Promise<void> {
  drive = sc.drive;
  sink = await recordingSink();
  h = await cascadeHarness({
    modules: sc.modules,
    operatorSpec: sc.operatorSpec,
    faults: true,
    start: (harnessEnv) => fn.start(harnessEnv, { K_SINK: sink.url }),
  });
}

async function tearDown(): Promise<void> {
  await fn.stopRestarted(h?.fns[0]);
  await h?.stop();
  await fn.proxy?.close();
  sink?.close();
  fn = killableFunction();
}

/** The run request, sent again (as a sender does) until it is answered 200; the run's name. */
async function request(iuid: string): Promise<string> {
  const body = { turlinfo: `s3://in/${iuid}.tgz`, iuid, oname: 'org', sname: 'src' };
  return waitFor(
    async () => {
      await fn.restarting;
      const answer = await post(h.url(), body).catch(() => undefined);
      return answer?.status === 200 ? String(answer.body.run) : undefined;
    },
    { timeoutMs: 60_000, message: `run request ${iuid} answered 200` },
  );
}

/** Janitor sweeps run so far, by ended() and by the scenarios' drives. */
let sweepsRun = 0;

async function sweep(): Promise<void> {
  sweepsRun++;
  const exit = await runJanitorProcess(await janitorEnv(h.ns, { K_SINK: sink.url }));
  expect(exit.code, exit.stderr).toBe(0);
}

/** The run ended and its event recorded sent; the janitor sweeps when deliveries alone do not get it there. */
async function ended(name: string): Promise<void> {
  for (let sweeps = 0; sweeps <= 6; sweeps++) {
    const run = await h.waitEnded(name, sweeps === 0 ? 15_000 : 8_000).catch(() => undefined);
    if (run) return;
    await fn.restarting;
    await sweep();
  }
  throw new Error(`run ${name} did not end, even with the janitor`);
}

interface Played {
  /** The runs the play made: the one requested, then any its drive made. */
  names: string[];
  writes: Write[];
  /** Writes sent, refused ones included. */
  sent: number;
  sweeps: number;
  /** The write the function was killed after; undefined when the run made fewer writes than `at`. */
  killedAfter?: string | undefined;
}

/** One run with the function killed right after its `at`-th write (none when undefined); its writes. */
async function play(iuid: string, at: number | undefined): Promise<Played> {
  await fn.restarting;
  fn.proxy!.arm(at, fn.killAndRestart);
  const before = sweepsRun;
  const name = await request(iuid);
  const more = (await drive?.(name, iuid)) ?? [];
  await ended(name);
  const sweeps = sweepsRun - before;
  await fn.restarting;
  const writes = fn.proxy!.writes();
  const sent = fn.proxy!.sent();
  const killedAfter = at !== undefined && fn.proxy!.killed() ? writes[at - 1]?.call : undefined;
  return { names: [name, ...more], writes, sent, sweeps, killedAfter };
}

/** The points to crash at: all of them, or a sample spread over the run (first, last, and two between). */
function points(total: number): number[] {
  const all = Array.from({ length: total }, (_, i) => i + 1);
  if (ALL) return all;
  return [...new Set([1, Math.ceil(total / 3), Math.ceil((2 * total) / 3), total])];
}

interface Scenario {
  label: string;
  modules: CascadeModule[];
  phase: TerminalPhase;
  /** Each module's phase when the run has ended. */
  modulePhases: (string | undefined)[];
  drive?: (name: string, iuid: string) => Promise<string[] | void>;
  /** More of the CascadeAutoOperator's spec. */
  operatorSpec?: Record<string, unknown>;
  /** Jobs per run, one per step attempt; unset: one per step started. */
  jobs?: number;
  /** The ids of the run's end events, from its uid; unset: one end, `<uid>-<phase>`. */
  endIds?: (uid: string) => string[];
}

/**
 * Each module reports success while its Job still runs, as a module that
 * sends its result first: once its step's Job exists, sent again until 200.
 * A module reports from its Job's pod, so no result comes before that Job.
 */
/** Where a step stands for its module: past it, its Job running, or neither yet. */
function stepState(run: CascadeRun, step: number): 'past' | 'job-runs' | 'wait' {
  if ((run.status?.currentStep ?? 0) > step || run.status?.phase === 'Succeeded') return 'past';
  const rec = run.status?.modules?.[step];
  return rec?.phase === 'Running' && h.jobs.has(rec.jobName) ? 'job-runs' : 'wait';
}

async function reportOnceJobRuns(name: string, step: number, module: string): Promise<true | undefined> {
  const state = stepState(await h.getRun(name), step);
  if (state !== 'job-runs') return state === 'past' || undefined;
  await fn.restarting;
  const answer = await post(h.url(), { runname: name, modulename: module, moduleresult: 'success' }).catch(
    () => undefined,
  );
  return answer?.status === 200 || undefined;
}

/** A step whose status was written and whose Job a crash cut off waits for the janitor: it sweeps after 10 s. */
async function resultsBeforeJobs(name: string): Promise<void> {
  for (const [step, module] of ['grayscale', 'binarization', 'diff'].entries()) {
    for (let sweeps = 0; ; sweeps++) {
      const reported = await waitFor(() => reportOnceJobRuns(name, step, module), {
        timeoutMs: 10_000,
        message: `module ${module} of ${name} reported`,
      }).catch(() => undefined);
      if (reported) break;
      if (sweeps === 5) throw new Error(`module ${module} of ${name} never reported, even with the janitor`);
      await fn.restarting;
      await sweep();
    }
  }
}

/** Cancels the run once its second step's Job runs: the cancel is sent again until answered 200, as a sender does. */
async function cancelAtSecondStep(name: string): Promise<void> {
  for (let sweeps = 0; ; sweeps++) {
    const running = await waitFor(async () => stepState(await h.getRun(name), 1) !== 'wait' || undefined, {
      timeoutMs: 10_000,
      message: `the second step of ${name} running`,
    }).catch(() => undefined);
    if (running) break;
    // a crash cut a step's Job off: the janitor creates it
    if (sweeps === 5) throw new Error(`the second step of ${name} never ran, even with the janitor`);
    await fn.restarting;
    await sweep();
  }
  await waitFor(
    async () => {
      await fn.restarting;
      const answer = await post(h.url(), { action: 'cancel', runname: name }).catch(() => undefined);
      return answer?.status === 200 || undefined;
    },
    { timeoutMs: 60_000, message: `cancel of ${name} answered 200` },
  );
}

/** Resumes the run once it has failed and its end is recorded; the request keeps one id, so a resend is a duplicate. */
async function resumeOnceFailed(name: string): Promise<void> {
  await ended(name);
  await waitFor(
    async () => {
      await fn.restarting;
      const body = { action: 'resume', runname: name, requestId: `resume-${name}` };
      const answer = await post(h.url(), body).catch(() => undefined);
      return answer?.status === 200 || undefined;
    },
    { timeoutMs: 60_000, message: `resume of ${name} answered 200` },
  );
  // The resumed step runs and fails again: the run is Running until then.
  await waitFor(async () => ((await h.getRun(name)).status?.resumes === 1 ? true : undefined), {
    message: `${name} resumed once`,
  });
}

/**
 * A second run requested while the first holds the limit of one: it waits
 * Queued, and starts when the first ends. Its iuid starts with another
 * letter, so that its name differs.
 */
async function queueASecond(name: string, iuid: string): Promise<string[]> {
  const second = await request(`q${iuid.slice(1)}`);
  await ended(name);
  await ended(second);
  return [second];
}

function checkRun(run: CascadeRun, sc: Scenario): void {
  expect({
    name: run.metadata.name,
    phase: run.status?.phase,
    slotReleased: run.status?.slotReleased,
    notified: run.status?.notified,
    modules: run.status?.modules?.map((m) => m.phase),
  }).toEqual({
    name: run.metadata.name,
    phase: sc.phase,
    slotReleased: true,
    notified: true,
    modules: sc.modulePhases,
  });
}

const SCENARIOS: Scenario[] = [
  {
    label: 'success',
    modules: successScenario(),
    phase: 'Succeeded',
    modulePhases: ['Succeeded', 'Succeeded', 'Succeeded'],
  },
  {
    label: 'module results before their Jobs end',
    // The pods run for 10 minutes: every step ends by its module's result, its Job deleted unfinished.
    modules: successScenario(600_000),
    phase: 'Succeeded',
    modulePhases: ['Succeeded', 'Succeeded', 'Succeeded'],
    drive: resultsBeforeJobs,
  },
  {
    label: 'second module fails',
    modules: failSecondScenario(),
    phase: 'Failed',
    modulePhases: ['Succeeded', 'Failed', 'Pending'],
  },
  {
    label: 'second module fails twice, retried after a backoff',
    modules: failSecondScenario().map((m, step) => (step === 1 ? { ...m, retry: { limit: 1, backoffSeconds: 2 } } : m)),
    phase: 'Failed',
    modulePhases: ['Succeeded', 'Failed', 'Pending'],
    jobs: 3,
  },
  {
    label: 'cancelled at the second step',
    // The second module runs for 10 minutes: the cancel finds its Job running.
    modules: successScenario().map((m, step) => (step === 1 ? imageModule(m.modulename, {}, { delayMs: 600_000 }) : m)),
    phase: 'Cancelled',
    modulePhases: ['Succeeded', 'Cancelled', 'Pending'],
    drive: cancelAtSecondStep,
  },
  {
    label: 'second module fails, the run is resumed and fails again',
    modules: failSecondScenario(),
    phase: 'Failed',
    modulePhases: ['Succeeded', 'Failed', 'Pending'],
    drive: resumeOnceFailed,
    jobs: 3,
    endIds: (uid) => [`${uid}-failed`, `${uid}-failed-r1`],
  },
  {
    label: 'a second run queued behind the first, a limit of one',
    modules: successScenario(),
    operatorSpec: { maxConcurrentRuns: 1 },
    phase: 'Succeeded',
    modulePhases: ['Succeeded', 'Succeeded', 'Succeeded'],
    drive: queueASecond,
  },
];

/** A write as the report shows it: method, then the path inside the namespace. */
const short = (call: string | undefined) => call?.replace(/^(\w+) .*?\/namespaces\/[^/]+\//, '$1 ');

/** Plays every crash point (or the sample) of one scenario and checks the invariants; a line per point for the report. */
async function crashEveryPoint(sc: Scenario): Promise<string> {
  const began = Date.now();
  // The first run of a namespace also holds the operator (its finalizer): played first, it is not a reference.
  const runs = [...(await play('aaaa0-warm', undefined)).names];
  const audit = auditLogOf(adminKubeconfigPath());
  const mark = auditMark(audit);
  const clean = await play('c1ea0-clean', undefined);
  runs.push(...clean.names);
  // The audit's writes of the function's ServiceAccount, Kubernetes Events and the Lease aside: the proxy saw each of them.
  const fnUser = serviceAccountUser(h.ns, 'cascade-function');
  const audited = () => {
    const fn = countByClient(auditLinesSince(audit, mark), { fn: fnUser }).fn!;
    const lease = Object.entries(fn.byVerb).filter(([verb]) => verb.startsWith('leases '));
    return fn.writes - lease.reduce((sum, [verb, n]) => sum + (verb === 'leases get' ? 0 : n), 0);
  };
  // A run's last writes may follow the reply that ended it: a Job deleted once Complete, a mark riding on a
  // counter write. The reference is taken when the proxy saw no new write for a poll and the audit log shows
  // exactly the writes it saw.
  let seen = -1;
  const writes = await waitFor(
    () => {
      const now = fn.proxy!.sent();
      const logged = audited();
      const settled = now === seen && logged === now;
      seen = now;
      // not settled: said, so that a timeout tells how far apart the two were
      if (!settled) throw new Error(`the proxy saw ${now} writes, the audit log shows ${logged}`);
      return fn.proxy!.writes();
    },
    { timeoutMs: 120_000, intervalMs: 1000, message: 'the writes settled and the audit log shows each of them' },
  );
  const total = writes.length;
  // The CascadeAutoOperator's status writes (counters, slots) follow the runs on their own rhythm: after a
  // restart another process may make them, or one write may carry two changes. A play may so make fewer writes.
  const operatorWrites = writes.filter((w) => /\/cascadeautooperators\/[^/]+\/status/.test(w.call)).length;
  const lines: string[] = [];
  for (const at of points(total)) {
    const played = await play(`${(0xc0000 + at).toString(16)}-crash`, at);
    runs.push(...played.names);
    lines.push(
      `${at}. ${short(writes[at - 1]!.call)}: killed after ${short(played.killedAfter) ?? 'nothing'}, ${played.sweeps} sweep(s)`,
    );
    // A run's last write, a Job deleted once Complete, may be the janitor's in one play and the function's in
    // another: every point before the last and the operator's writes must be reached.
    if (at < total - operatorWrites)
      expect(
        played.killedAfter,
        `crash point ${at} reached; the reference's writes: ${writes.map((w, i) => `${i + 1}. ${short(w.call)}`).join(', ')}`,
      ).toBeDefined();
  }
  for (const name of runs) checkRun(await h.getRun(name), sc);
  // Each step attempt's Job, created once: one uid per name, as a watch of Jobs saw them.
  const started = sc.modulePhases.filter((p) => p !== 'Pending').length;
  expect(h.jobs.size).toBe(runs.length * (sc.jobs ?? started));
  expect([...h.jobs].filter(([, byUid]) => byUid.size !== 1).map(([n]) => n)).toEqual([]);
  const counter = sc.phase.toLowerCase();
  await expect
    .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
    .toMatchObject({ active: 0, [counter]: runs.length });
  for (const name of runs) {
    const uid = (await h.getRun(name)).metadata.uid;
    const ids = new Set(
      sink.received.filter((r) => r.headers['ce-subject'] === name).map((r) => String(r.headers['ce-id'])),
    );
    expect([...ids].sort(), `run-end event ids of ${name}`).toEqual(sc.endIds?.(uid!) ?? [`${uid}-${counter}`]);
  }
  const p50 = [...fn.restarts].sort((a, b) => a - b)[Math.floor(fn.restarts.length / 2)];
  return `crash points, ${sc.label}: ${total} writes, ${points(total).length} played in ${Math.round((Date.now() - began) / 1000)} s, restart p50 ${p50} ms\n${lines.join('\n')}`;
}

for (const sc of SCENARIOS) {
  describe(`a crash right after each API write of a run: ${sc.label}`, () => {
    beforeAll(() => setUp(sc), 300_000);
    afterAll(tearDown);
    it(
      `${ALL ? 'every point' : 'a sample of the points'}: each run ends once, ${sc.phase}, one Job per step attempt, exact counters, its end event sent under one id`,
      { timeout: ALL ? 3_600_000 : 600_000 },
      async () => {
        console.log(await crashEveryPoint(sc));
      },
    );
  });
}
