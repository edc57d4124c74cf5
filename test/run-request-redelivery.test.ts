// The run request owns its run's start. The function, behind queue-proxy as
// in a pod, is killed (SIGKILL) right after each write it makes between the
// run's create and its first Job, or while 16 requests are in flight; a new
// process starts; each request is sent again until answered 200, as the
// Broker does. Nothing else moves the run here: no ApiServerSource (so no add
// event and no Job event) and no janitor. The redelivery alone must start the
// run at once. And a run whose first Job ended while no event came: the
// request sent again makes the next step's Job.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_RUN, LABEL_STEP } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { killableFunction } from './support/killable-function.ts';
import { cascadeHarness, post, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness;
const fn = killableFunction();

beforeAll(async () => {
  // modules that run 2 s: a step's Job is still there when the test looks, its run moved on or not (madeInTurn)
  h = await cascadeHarness({
    modules: successScenario(2000),
    source: false,
    faults: true,
    queueProxy: {},
    start: (harnessEnv) => fn.start(harnessEnv),
  });
});

afterAll(async () => {
  await fn.stopRestarted(h?.fns[0]);
  await h?.stop();
  await fn.proxy?.close();
});

/** The request sent until answered 200 (the Broker retries a refused or unanswered delivery); the run's name. */
function request(iuid: string): Promise<string> {
  const body = { turlinfo: `s3://in/${iuid}.tgz`, iuid };
  return waitFor(
    async () => {
      await fn.restarting;
      const answer = await post(h.url(), body).catch(() => undefined);
      return answer?.status === 200 ? String(answer.body.run) : undefined;
    },
    { timeoutMs: 60_000, message: `run request ${iuid} answered 200` },
  );
}

async function jobsOf(run: string): Promise<V1Job[]> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  return (await batch.listNamespacedJob({ namespace: h.ns, labelSelector: `${LABEL_RUN}=${run}` })).items;
}

const stepOf = (job: V1Job) => Number(job.metadata?.labels?.[LABEL_STEP]);
const complete = (job: V1Job) =>
  Boolean(job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'));

/**
 * One Job a step, from step 0's up, and each but the last one complete. A restart slower than a step's 2 s lets
 * step 0's Job end before the test looks: the request sent again, or the new process's first sync, then makes
 * step 1's, as it must. A second Job for a step, a step skipped, or a step made before its previous Job ended fails.
 */
function madeInTurn(jobs: readonly V1Job[]): boolean {
  const byStep = [...jobs].sort((a, b) => stepOf(a) - stepOf(b));
  return byStep.every((job, i) => stepOf(job) === i && (i === byStep.length - 1 || complete(job)));
}

/** The writes of a clean start, up to and including the first Job's create. */
async function writesToFirstJob(): Promise<string[]> {
  fn.proxy!.arm(undefined, () => {});
  const name = await request('c1ea0001');
  const calls = await waitFor(
    () => {
      const made = fn.proxy!.writes().map((w) => w.call);
      return made.some((c) => c.endsWith('/jobs')) && made;
    },
    { message: `the first Job of ${name}, as the proxy saw it` },
  );
  const run = calls.findIndex((c) => /^POST .*\/cascaderuns$/.test(c));
  const job = calls.findIndex((c) => c.endsWith('/jobs'));
  expect(run, calls.join('\n')).toBeGreaterThanOrEqual(0);
  expect(job, calls.join('\n')).toBeGreaterThan(run);
  return calls.slice(run, job + 1);
}

describe('a run request sent again after a crash', () => {
  it('starts its run at once, whichever write between the run and its first Job the crash followed', async () => {
    const points = await writesToFirstJob();
    // the writes before the run's own create (the operator's finalizer, once) are not made again
    for (const [i, call] of points.entries()) {
      const iuid = `dead${String(i).padStart(4, '0')}`;
      fn.proxy!.arm(i + 1, fn.killAndRestart);
      // the kill may follow the reply: the start is made after it
      await post(h.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid }).catch(() => undefined);
      await waitFor(() => fn.proxy!.killed(), { message: `killed after ${call}` });
      const name = await request(iuid);
      // no add event, no Job event, no janitor: the request sent again did it
      const jobs = await waitFor(
        async () => {
          const [run, listed] = await Promise.all([h.getRun(name), jobsOf(name)]);
          return run.status?.phase === 'Running' && listed.length > 0 && listed;
        },
        { timeoutMs: 20_000, message: `run ${name} started after a kill following ${call}` },
      );
      const seen = jobs.map((j) => `step ${stepOf(j)}${complete(j) ? ' complete' : ''}`).sort();
      expect(
        madeInTurn(jobs),
        `one Job a step from step 0's, each before the last complete, after ${call}: ${seen.join(', ')}`,
      ).toBe(true);
    }
  });

  it.each([30, 60, 90, 130])(
    'starts each of 16 runs whose requests were in flight when the function was killed %i ms in',
    async (ms) => {
      fn.proxy!.arm(undefined, () => {});
      const iuids = Array.from({ length: 16 }, (_, i) => `k${ms}x${String(i).padStart(3, '0')}`);
      const sent = iuids.map((iuid) => post(h.url(), { turlinfo: `s3://in/${iuid}.tgz`, iuid }).catch(() => undefined));
      await new Promise((r) => setTimeout(r, ms));
      fn.killAndRestart();
      await Promise.all(sent);
      // every request sent again, as the Broker does, each answered 200
      const names = await Promise.all(iuids.map(request));
      const notStarted = await waitFor(
        async () => {
          const left: string[] = [];
          for (const name of names) {
            const [run, jobs] = await Promise.all([h.getRun(name), jobsOf(name)]);
            if (run.status?.phase !== 'Running' || jobs.length === 0) left.push(name);
          }
          return left.length === 0 && left;
        },
        { timeoutMs: 20_000, message: `16 runs started after a kill ${ms} ms in` },
      );
      expect(notStarted).toEqual([]);
    },
  );

  it("makes the next step's Job when the first one ended and no event said so", async () => {
    fn.proxy!.arm(undefined, () => {});
    const name = await request('ended001');
    await waitFor(
      async () => (await jobsOf(name)).some((j) => j.status?.conditions?.some((c) => c.type === 'Complete')),
      { timeoutMs: 30_000, message: `step 0's Job of ${name} complete` },
    );
    expect(await request('ended001')).toBe(name);
    const steps = await waitFor(
      async () => {
        const listed = (await jobsOf(name)).map((j) => j.metadata?.labels?.[LABEL_STEP]);
        return listed.includes('1') && listed;
      },
      { timeoutMs: 20_000, message: `step 1's Job of ${name}` },
    );
    expect(steps.filter((s) => s === '1')).toEqual(['1']);
  });
});
