// Issue 28 §2: a run request is answered once its CascadeRun exists; the
// first decision and the first Job follow in the same process. Killed with
// SIGKILL as soon as the first reply arrives, the process leaves runs created
// and not started, or started with no Job. None stays so: the runs' add
// events, delivered again to the process that replaces it, start them or make
// their Job; without the ApiServerSource, one janitor sweep does. Each run is
// counted once.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post } from './support/cascade-harness.ts';
import { janitorEnv, runJanitorProcess } from './support/janitor.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness | undefined;
let next: FunctionProcess | undefined;
afterEach(async () => {
  await next?.stop('SIGKILL');
  next = undefined;
  await h?.stop();
  h = undefined;
});

const RUNS = 10;
const request = (tag: string, i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: `${tag}${i}0-crash`, oname: 'o' });

/** Sends RUNS run requests at once, SIGKILLs the function as the first 200 arrives; the runs as they stood then. */
async function killAtFirstReply(harness: Harness, tag: string) {
  const fn = harness.fns[0]!;
  const exited = new Promise((resolve) => fn.child.once('exit', resolve));
  let killed = false;
  const answers = Array.from({ length: RUNS }, (_, i) =>
    post(fn.url, request(tag, i)).then(
      (a) => {
        if (a.status === 200 && !killed) {
          killed = true;
          fn.child.kill('SIGKILL');
        }
        return a;
      },
      () => undefined,
    ),
  );
  const replied = (await Promise.all(answers)).filter((a) => a?.status === 200).map((a) => String(a!.body.run));
  if (!killed) fn.child.kill('SIGKILL');
  await exited;
  // not started: no phase yet, or the status written and the first Job not made (read at once, before the replacement acts)
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const [runs, jobs] = await Promise.all([
    harness.listRuns(),
    batch.listNamespacedJob({ namespace: harness.ns, labelSelector: LABEL_RUN }),
  ]);
  const withJobs = new Set(jobs.items.map((j) => j.metadata?.labels?.[LABEL_RUN]));
  const unstarted = runs
    .filter((r) => r.status?.phase === undefined || !withJobs.has(r.metadata.name))
    .map((r) => r.metadata.name);
  return { replied, runs, unstarted };
}

async function jobExists(harness: Harness, name: string): Promise<boolean> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const jobs = await batch.listNamespacedJob({ namespace: harness.ns, fieldSelector: `metadata.name=${name}` });
  return jobs.items.length === 1;
}

/** Every run started once and counted once: each has a phase, and the operator counts each run once. */
async function expectStartedOnce(harness: Harness, runs: CascadeRun[]) {
  for (const run of runs)
    await waitFor(async () => (await harness.getRun(run.metadata.name)).status?.phase !== undefined, {
      timeoutMs: 60_000,
      message: `run ${run.metadata.name} started`,
    });
  const counted = async () => {
    const s = (await harness.operator()).status;
    return (s?.active ?? 0) + (s?.succeeded ?? 0) + (s?.failed ?? 0) + (s?.queued ?? 0) + (s?.cancelled ?? 0);
  };
  await expect.poll(counted, COUNTERS_SETTLE).toBe(runs.length);
}

describe('SIGKILL right after the reply to a run request', () => {
  it(
    'the runs left unstarted are started from their add events by the next process, and end once',
    { timeout: 300_000 },
    async () => {
      h = await cascadeHarness({ modules: successScenario(0), faults: true });
      // The replacement is up before the kill, and the Broker sends to it: as Knative routes around a dead pod.
      next = await startFunction(h.env);
      const replacement = next.url;
      const fn = h.fns[0]!;
      fn.child.once('exit', () => h?.broker.setAddresses('Service/cascade', [replacement]));
      const { replied, runs, unstarted } = await killAtFirstReply(h, 'kadd');

      expect(replied.length, 'at least the first reply').toBeGreaterThan(0);
      expect(unstarted.length, 'the kill left runs not started, or with no Job').toBeGreaterThan(0);
      const names = runs.map((r) => r.metadata.name);
      expect(names, 'every run answered 200 exists').toEqual(expect.arrayContaining(replied));

      await expectStartedOnce(h, runs);
      for (const name of names) expect((await h.waitEnded(name)).status?.phase).toBe('Succeeded');
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: runs.length, failed: 0 });
    },
  );

  it(
    'without the ApiServerSource, one janitor sweep starts the runs left unstarted',
    { timeout: 300_000 },
    async () => {
      h = await cascadeHarness({ modules: successScenario(0), faults: true, source: false });
      const { replied, runs, unstarted } = await killAtFirstReply(h, 'kjan');
      expect(unstarted.length, 'the kill left runs not started, or with no Job').toBeGreaterThan(0);
      expect(runs.map((r) => r.metadata.name)).toEqual(expect.arrayContaining(replied));

      const swept = await runJanitorProcess(await janitorEnv(h.ns));
      expect(swept.code, swept.stderr).toBe(0);
      for (const name of unstarted) {
        const run = await h.getRun(name);
        expect(run.status?.phase, `${name} started by the sweep`).toBe('Running');
        expect(run.status?.modules?.[0]?.jobName, `${name}'s first Job named`).toBeTruthy();
        expect(await jobExists(h, run.status!.modules![0]!.jobName), `${name}'s first Job`).toBe(true);
      }
      await expectStartedOnce(h, runs);
    },
  );
});
