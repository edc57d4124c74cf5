// Issue 43 §1: recovery in seconds. Runs are left with their next move due
// while no function serves: the function killed (SIGKILL) while run requests
// are in flight, or stopped (SIGTERM, as Knative scales to zero) while Jobs
// run; their Jobs end meanwhile, and the Broker gives up the events of it. A
// run is created with no status, another with its first step written and its
// Job never made. No janitor runs here, and no event is left to deliver when
// the function serves again. Then every run moves within 10 s of a process
// serving: its first sync (shared/engine/sync/first-sync.ts) lists the runs and
// their Jobs and moves each run whose next move is due. Every run ends
// Succeeded, each step's Job created once (by uid), each run counted once;
// with two replicas starting at once too.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import type { CascadeRun, CascadeRunStatus } from '../shared/api/cascade-run.ts';
import { jobName, LABEL_RUN } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { expectEndedOnce } from './support/ended-once.ts';
import { synced, type SyncFigures } from './support/first-sync.ts';
import { createRun } from './support/janitor.ts';
import { killableFunction, type KillableFunction } from './support/killable-function.ts';
import { adminKubeConfig, sleep, waitFor } from './support/kube.ts';

const MODULES = successScenario(3000);
const NAMES = MODULES.map((m) => m.modulename);
const RUNS = 8;
/** Issue 43's bound, from the process serving again to every run moved. */
const MOVED_WITHIN_MS = 10_000;
const batch = adminKubeConfig().makeApiClient(BatchV1Api);

let h: Harness | undefined;
let fn: KillableFunction = killableFunction();
const others: FunctionProcess[] = [];
afterEach(async () => {
  await Promise.all(others.splice(0).map((f) => f.stop('SIGKILL')));
  await fn.stopRestarted(h?.fns[0]);
  await h?.stop();
  await fn.proxy?.close();
  fn = killableFunction();
  h = undefined;
});

/** The harness, its function killable; the Broker answers before it delivers, so a source is never held by a dead function. */
async function setUp(): Promise<Harness> {
  h = await cascadeHarness({ modules: MODULES, faults: true, broker: 'async', start: (env) => fn.start(env) });
  return h;
}

const request = (tag: string, i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: `${tag}${i}0-sync`, oname: 'o' });

/** RUNS run requests at once; SIGKILL as the RUNS/2-th is answered 200. */
async function killMidRequests(tag: string): Promise<void> {
  const url = fn.current!.url;
  let answered = 0;
  let dead: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      post(url, request(tag, i)).then(
        (a) => {
          if (a.status === 200 && ++answered === RUNS / 2) dead = fn.kill();
        },
        () => undefined,
      ),
    ),
  );
  await (dead ?? fn.kill());
}

/** RUNS run requests, each started (its first Job made); then SIGTERM, as Knative scales the pod to zero. */
async function stopWhileJobsRun(tag: string): Promise<void> {
  const url = fn.current!.url;
  const names = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => String((await post(url, request(tag, i))).body.run)),
  );
  for (const name of names) await h!.waitStarted(name);
  expect(await fn.current!.stop('SIGTERM')).toBe(0);
}

/** A run as a run request creates it, and another whose first step was written, then its process died before the Job. */
async function createLeftBehind(harness: Harness): Promise<string[]> {
  const at = new Date().toISOString();
  const started = (run: string): CascadeRunStatus => ({
    phase: 'Running',
    currentStep: 0,
    currentModule: NAMES[0],
    startTime: at,
    result: [],
    modules: NAMES.map((name, step) => ({
      step,
      name,
      jobName: jobName(SCENARIO, run, NAMES, step),
      ...(step === 0 ? { phase: 'Running' as const, startTime: at } : { phase: 'Pending' as const }),
    })),
  });
  return [
    await createRun(harness, SCENARIO, { iuid: 'nost0-sync', modules: MODULES }),
    await createRun(harness, SCENARIO, { iuid: 'nojob-sync', modules: MODULES, status: started(`${SCENARIO}-nojob`) }),
  ];
}

const runOf = (job: V1Job) => job.metadata?.labels?.[LABEL_RUN] ?? '';
const finished = (job: V1Job) =>
  Boolean(job.status?.conditions?.some((c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True'));

async function listJobs(harness: Harness): Promise<V1Job[]> {
  return (await batch.listNamespacedJob({ namespace: harness.ns, labelSelector: LABEL_RUN })).items;
}

/**
 * While no function serves: every Job ends, and the Broker has given up every
 * event (nothing in flight, and no new attempt for a second). Returns the runs
 * as they are left, and the Jobs each had then.
 */
async function leftBehind(harness: Harness): Promise<{ runs: CascadeRun[]; jobs: Map<string, Set<string>> }> {
  await waitFor(async () => (await listJobs(harness)).every(finished), {
    timeoutMs: 60_000,
    message: 'every Job ended while no function served',
  });
  for (let attempts = -1; attempts !== harness.broker.attempts.length;) {
    attempts = harness.broker.attempts.length;
    await harness.broker.settled();
    await sleep(1000);
  }
  const jobs = new Map<string, Set<string>>();
  for (const job of await listJobs(harness)) {
    const names = jobs.get(runOf(job)) ?? new Set<string>();
    jobs.set(runOf(job), names.add(job.metadata!.name!));
  }
  return { runs: await harness.listRuns(), jobs };
}

/**
 * From `since` (the process serving again) until every run left behind has
 * moved: a Job of it that was not there, or its end. Fails past 10 s. The time
 * each run took, in ms.
 */
async function timesToMove(
  harness: Harness,
  left: Awaited<ReturnType<typeof leftBehind>>,
  since: number,
): Promise<number[]> {
  const moved = new Map<string, number>();
  await waitFor(
    async () => {
      const now = await listJobs(harness);
      const runs = await harness.listRuns();
      for (const run of left.runs) {
        const name = run.metadata.name;
        if (moved.has(name)) continue;
        const had = left.jobs.get(name) ?? new Set<string>();
        const newJob = now.some((j) => runOf(j) === name && !had.has(j.metadata!.name!));
        const ended = runs.find((r) => r.metadata.name === name)?.status?.phase === 'Succeeded';
        if (newJob || ended) moved.set(name, Date.now() - since);
      }
      return moved.size === left.runs.length;
    },
    {
      timeoutMs: MOVED_WITHIN_MS,
      intervalMs: 100,
      message: `every run moved within ${MOVED_WITHIN_MS} ms of the function serving again, with no janitor`,
    },
  );
  return [...moved.values()].sort((a, b) => a - b);
}

const movedBy = (f: SyncFigures) => f.moved.start + f.moved.look;

/** The runs left behind, each due: no status, no Job for its current step, or that Job ended. */
function expectAllDue(left: Awaited<ReturnType<typeof leftBehind>>): void {
  expect(left.runs.length).toBeGreaterThan(0);
  for (const run of left.runs) expect(run.status?.phase, run.metadata.name).not.toBe('Succeeded');
}

/** Starts `start` (a process, or two at once); the time it took to serve, and when it served. */
async function serveAgain<T>(start: () => Promise<T>): Promise<{ serving: T; upMs: number; since: number }> {
  const began = Date.now();
  const serving = await start();
  const since = Date.now();
  return { serving, upMs: since - began, since };
}

/** One line of figures in the test's output: the process's start, then the first and last run moved after it served. */
function report(what: string, upMs: number, times: number[]): void {
  console.info(
    `${what}: served again in ${upMs} ms; ${times.length} runs moved ${times[0]} to ${times.at(-1)} ms later`,
  );
}

describe('a process that serves again moves every run whose next move is due, without the janitor', () => {
  it('after SIGKILL while run requests were in flight', { timeout: 300_000 }, async () => {
    const harness = await setUp();
    await killMidRequests('kill');
    const left = await leftBehind(harness);
    expectAllDue(left);
    const { serving, upMs, since } = await serveAgain(fn.restart);
    report('SIGKILL mid-requests', upMs, await timesToMove(harness, left, since));
    // No event was left to deliver: the first sync moved each run, once.
    expect(movedBy(await synced(serving))).toBe(left.runs.length);
    await expectEndedOnce(
      harness,
      left.runs.map((r) => r.metadata.name),
      NAMES,
    );
  });

  it('after Jobs ended while no function ran (stopped as scale to zero stops it)', { timeout: 300_000 }, async () => {
    const harness = await setUp();
    await stopWhileJobsRun('zero');
    const left = await leftBehind(harness);
    expectAllDue(left);
    expect(left.runs).toHaveLength(RUNS);
    const { serving, upMs, since } = await serveAgain(fn.restart);
    report('Jobs ended while none served', upMs, await timesToMove(harness, left, since));
    expect(movedBy(await synced(serving))).toBe(RUNS);
    await expectEndedOnce(
      harness,
      left.runs.map((r) => r.metadata.name),
      NAMES,
    );
  });

  it(
    'a run accepted with no status, and one whose first step was written and its Job never made',
    { timeout: 300_000 },
    async () => {
      const harness = await setUp();
      await fn.kill();
      const runs = await createLeftBehind(harness);
      const left = await leftBehind(harness);
      const phases = new Map(left.runs.map((r) => [r.metadata.name, r.status?.phase]));
      expect(phases).toEqual(
        new Map([
          [runs[0], undefined],
          [runs[1], 'Running'],
        ]),
      );
      expect(left.jobs.size).toBe(0);
      const { serving, upMs, since } = await serveAgain(fn.restart);
      report('no status, no Job', upMs, await timesToMove(harness, left, since));
      const figures = await synced(serving);
      expect(figures.moved).toMatchObject({ start: 1, look: 1 });
      await expectEndedOnce(harness, runs, NAMES);
    },
  );

  it('two replicas starting at once: each step’s Job is created exactly once', { timeout: 300_000 }, async () => {
    const harness = await setUp();
    await killMidRequests('pair');
    await createLeftBehind(harness);
    const left = await leftBehind(harness);
    expectAllDue(left);
    const started = await serveAgain(() => Promise.all([startFunction(harness.env), startFunction(harness.env)]));
    const pair = started.serving;
    others.push(...pair);
    harness.broker.setAddresses(
      'Service/cascade',
      pair.map((p) => p.url),
    );
    report('two replicas', started.upMs, await timesToMove(harness, left, started.since));
    const figures = await Promise.all(pair.map((p) => synced(p)));
    // Both looked; between them, every run moved at least once.
    expect(movedBy(figures[0]!) + movedBy(figures[1]!)).toBeGreaterThanOrEqual(left.runs.length);
    await expectEndedOnce(
      harness,
      left.runs.map((r) => r.metadata.name),
      NAMES,
    );
    for (const p of pair) expect(p.errorLines()).toEqual([]);
  });
});
