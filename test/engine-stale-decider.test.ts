// A late decider on another replica must never create a step's Job again once
// that Job was created and recorded. Two replicas run in-process against the
// real API server, each with its own cache of the runs it wrote. Replica B
// last wrote the run while step 1 ran. Replica A then takes the run on: step 1
// succeeds, step 2's Job is created, step 2 succeeds and its Job is kept until
// the run ends. Step 1's success result reaches B late, a duplicate delivery.
// B decides from its stale copy that step 2 is due. B must create nothing: a
// module that ran once must not run twice. The same holds for a copy read
// fresh, then acted on late, and for a decider that stalls between its status
// write and its Job's create while another replica creates the Job and the
// step ends: its create meets "exists". A step whose decider died between its
// status and its Job gets its Job from the next event, though that event shows
// none of the step's Jobs.
import { BatchV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';
import { acceptModuleResult } from '../shared/engine/entry/accept-result.ts';
import { runCache } from '../shared/engine/process/run-cache.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { reconcileRun } from '../shared/engine/run/reconcile.ts';
import { observeJob } from '../shared/core/observed-job.ts';
import { connectStore } from '../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness;
let config: EngineDeps['config'];
const FOREVER = { delayMs: 600_000 };
const MODULES = [
  imageModule('first', {}, FOREVER),
  imageModule('second', {}, FOREVER),
  imageModule('third', {}, FOREVER),
];
beforeAll(async () => {
  h = await cascadeHarness({ modules: MODULES, replicas: 0, source: false });
  const parsed = parseConfig(h.env);
  if (!parsed.ok) throw new Error(parsed.reason);
  config = parsed.value;
});
afterAll(async () => {
  await h?.stop();
});

/** The phases of the run's steps, as stored. */
async function phases(run: string): Promise<string[]> {
  return ((await h.getRun(run)).status?.modules ?? []).map((m) => m.phase);
}

/** The uids a watch saw under one Job name: each is one Job created. */
function createdUids(name: string): string[] {
  return [...(h.jobs.get(name)?.keys() ?? [])];
}

/** The Jobs in the namespace now. */
async function jobNames(): Promise<string[]> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  return (await batch.listNamespacedJob({ namespace: h.ns })).items.map((j) => j.metadata?.name ?? '');
}

/** One replica: its own store connection and its own cache of the runs it wrote. */
function replica(): EngineDeps {
  const base = {
    config,
    store: connectStore(config.namespace, DEFAULT_RETRY, h.env.KUBECONFIG),
    log: pino({ level: 'silent' }),
    now: () => new Date(),
    notify: async () => false,
  };
  // The janitor's parts, with the one per-process part this test is about: a cache of the runs it wrote.
  return { ...janitorEngine(base), runs: runCache() };
}

describe('a stale decider on another replica', () => {
  it("never creates a step's Job again after it was created and recorded", async () => {
    const a = replica();
    const b = replica();
    const started = await startRun(b, { turlinfo: 's3://in/x.tgz', iuid: 'a5a1e-stale' });
    expect(started.kind).toBe('accepted');
    const run = String((started as { body: Record<string, unknown> }).body.run);
    const second = (await h.getRun(run)).status?.modules?.[1]?.jobName;
    expect(second).toBeTruthy();
    // B's cache holds the run as B wrote it: step 1 running.
    expect(b.runs?.get(run)?.status?.modules?.[0]?.phase).toBe('Running');

    // A moves the run on: step 1 succeeds (step 2's Job is created), then step 2 (its Job is kept).
    const r1 = { runname: run, modulename: 'first', moduleresult: 'success' };
    expect(await acceptModuleResult(a, r1)).toMatchObject({ kind: 'accepted', body: { verdict: 'applied' } });
    expect(await acceptModuleResult(a, { runname: run, modulename: 'second', moduleresult: 'success' })).toMatchObject({
      kind: 'accepted',
      body: { verdict: 'applied' },
    });
    await h.recorded([second!]);
    expect(await phases(run)).toEqual(['Succeeded', 'Succeeded', 'Running']);

    // Step 1's success result reaches B late: B decides from its stale copy.
    await acceptModuleResult(b, r1);

    const after = await h.getRun(run);
    expect(
      after.status?.modules?.map((m) => m.phase),
      'the run as A left it',
    ).toEqual(['Succeeded', 'Succeeded', 'Running']);
    // Every Job ever created, by name and uid, from a watch: step 2's Job was created once.
    await new Promise((r) => setTimeout(r, 1000));
    expect(createdUids(second!), `Job ${second} created once`).toHaveLength(1);
    expect(await jobNames(), "step 2's Job kept while the run goes on").toContain(second);
  });

  it('never creates it again from a copy read before, however fresh when read', async () => {
    const a = replica();
    const b = replica();
    const started = await startRun(a, { turlinfo: 's3://in/x.tgz', iuid: 'a5a1e-fresh' });
    const run = String((started as { body: Record<string, unknown> }).body.run);
    const [first, second] = ((await h.getRun(run)).status?.modules ?? []).map((m) => m.jobName);
    // B reads the run while step 1 runs, with step 1's Job seen complete, then stalls before it acts.
    const read = await h.getRun(run);
    const uid = [...(await h.recorded([first!])).get(first!)!.keys()][0];
    const complete = { name: first!, uid, run, step: 0, state: 'Succeeded' as const, deleting: false, done: true };
    await acceptModuleResult(a, { runname: run, modulename: 'first', moduleresult: 'success' });
    await acceptModuleResult(a, { runname: run, modulename: 'second', moduleresult: 'success' });
    await h.recorded([second!]);

    // B acts on its read: step 2 looks due.
    await reconcileRun(b, run, { kind: 'Observe' }, { known: read, jobs: [complete] });

    expect(await phases(run)).toEqual(['Succeeded', 'Succeeded', 'Running']);
    await new Promise((r) => setTimeout(r, 1000));
    expect(createdUids(second!), `Job ${second} created once`).toHaveLength(1);
    expect(await jobNames()).toContain(second);
  });

  it('finds one Job when a decider stalls between its status write and its create for the whole step', async () => {
    // A's create of step 2's Job waits until the test lets it go.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let stalled: () => void = () => {};
    const reached = new Promise<void>((r) => (stalled = r));
    const a = replica();
    const real = a.store;
    const b = replica();
    const started = await startRun(b, { turlinfo: 's3://in/x.tgz', iuid: 'a5a1e-stall' });
    const run = String((started as { body: Record<string, unknown> }).body.run);
    const second = (await h.getRun(run)).status?.modules?.[1]?.jobName;
    a.store = {
      ...real,
      createJob: async (job) => {
        if (job.metadata?.name === second) {
          stalled();
          await held;
        }
        return real.createJob(job);
      },
    };

    // A records step 1's success, writes step 2 started, and stalls before step 2's create.
    const r1 = { runname: run, modulename: 'first', moduleresult: 'success' };
    const late = acceptModuleResult(a, r1);
    await reached;
    // Meanwhile B looks at the run with every Job listed: step 2 started, no Job. It creates it.
    await waitFor(
      async () => {
        await reconcileRun(b, run, { kind: 'Observe' });
        return (await jobNames()).includes(second!);
      },
      { message: `Job ${second} created by B`, timeoutMs: 30_000 },
    );
    // Step 2 ends while A still stalls.
    expect(await acceptModuleResult(b, { runname: run, modulename: 'second', moduleresult: 'success' })).toMatchObject({
      kind: 'accepted',
      body: { verdict: 'applied' },
    });
    expect(await phases(run)).toEqual(['Succeeded', 'Succeeded', 'Running']);

    // A's create goes out at last: the name is still taken.
    release();
    await late;
    await new Promise((r) => setTimeout(r, 1000));
    expect(createdUids(second!), `Job ${second} created once`).toHaveLength(1);
    expect(await phases(run)).toEqual(['Succeeded', 'Succeeded', 'Running']);
  });
});

describe('a step started whose decider died before its Job was created', () => {
  it('gets its Job from the next event of the run, though that event shows no Job of the step', async () => {
    const a = replica();
    const started = await startRun(a, { turlinfo: 's3://in/x.tgz', iuid: 'a5a1e-unseen' });
    const run = String((started as { body: Record<string, unknown> }).body.run);
    // The status a decider wrote 10 s ago before it died: step 1 started, its Job never created, no uid.
    const stored = await h.getRun(run);
    const modules = stored.status!.modules!.map((m) =>
      m.step === 0
        ? { ...m, phase: 'Succeeded' as const, completionTime: new Date().toISOString() }
        : m.step === 1
          ? { ...m, phase: 'Running' as const, startTime: new Date(Date.now() - 10_000).toISOString() }
          : m,
    );
    await h.custom.replaceNamespacedCustomObjectStatus({
      group: 'cascade.cascade.net',
      version: 'v1alpha1',
      namespace: h.ns,
      plural: 'cascaderuns',
      name: run,
      body: { ...stored, status: { ...stored.status, modules, currentStep: 1 } },
    });
    const second = modules[1]!.jobName;
    expect(await jobNames()).not.toContain(second);

    // Step 1's event delivered again: it shows the Job of step 1, none of step 2.
    const first = await adminKubeConfig()
      .makeApiClient(BatchV1Api)
      .readNamespacedJob({ name: modules[0]!.jobName, namespace: h.ns });
    await reconcileRun(a, run, { kind: 'Observe' }, { jobs: [observeJob(first)!] });

    expect(await jobNames()).toContain(second);
    expect(await phases(run)).toEqual(['Succeeded', 'Running', 'Pending']);
  });
});
