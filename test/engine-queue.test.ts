// The concurrency limit (spec.maxConcurrentRuns) against the real control
// plane: many runs on two replicas never exceed it and start in the order
// their requests were admitted; a run request redelivered or half-done by a
// crash at the limit is admitted once; the janitor frees the slot of a run
// deleted in flight and starts a queued run whose wake-up was lost.
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { createRun, janitorDeps, janitorKubeconfig } from './support/janitor.ts';
import { waitFor } from './support/kube.ts';
import { watchRuns } from './support/run-watch.ts';

let h: Harness | undefined;
let watch: ReturnType<typeof watchRuns> | undefined;
afterEach(async () => {
  watch?.stop();
  watch = undefined;
  await h?.stop();
  h = undefined;
});

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const iuid = (i: number) => `${(0x10000 + i).toString(16)}-${i}`;
const request = (i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: iuid(i), oname: 'org', sname: 'src' });

async function writeOperatorStatus(harness: Harness, status: CascadeAutoOperator['status']): Promise<void> {
  const op = await harness.operator();
  await harness.custom.replaceNamespacedCustomObjectStatus({
    ...G,
    namespace: harness.ns,
    plural: 'cascadeautooperators',
    name: SCENARIO,
    body: { ...op, status },
  });
}

async function sweepOnce(harness: Harness) {
  const deps = janitorDeps(await janitorKubeconfig(harness.ns), { POD_NAMESPACE: harness.ns, SCENARIO_NAME: SCENARIO });
  return sweep(deps, new Date());
}

describe('concurrency limit and queue', () => {
  const RUNS = 50;
  const LIMIT = 5;

  it(
    `${RUNS} runs at maxConcurrentRuns ${LIMIT} on two replicas, each request delivered to both: never more than ${LIMIT} in progress, slots given first in first out`,
    { timeout: 600_000 },
    async () => {
      h = await cascadeHarness({
        modules: [imageModule('grayscale', {}, { delayMs: 1000 })],
        replicas: 2,
        operatorSpec: { maxConcurrentRuns: LIMIT },
      });
      watch = watchRuns(h.ns);
      await watch.ready;
      // All at once, each request to both replicas: a redelivery racing the first delivery.
      const replies = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => Promise.all([post(h!.url(0), request(i)), post(h!.url(1), request(i))])),
      );
      for (const pair of replies) {
        expect(
          pair.map((r) => r.status),
          JSON.stringify(pair),
        ).toEqual([200, 200]);
        expect(pair[0]!.body['run']).toBe(pair[1]!.body['run']);
      }
      expect(
        replies.map((pair) => pair[0]!.body['phase']),
        'some requests found the limit reached',
      ).toContain('Queued');
      expect(new Set(replies.map((pair) => pair[0]!.body['run'])).size).toBe(RUNS);

      const ended = await waitFor(
        async () => {
          const runs = await h!.listRuns();
          return runs.filter((r) => r.status?.phase === 'Succeeded' && r.status.notified).length === RUNS
            ? runs
            : undefined;
        },
        { timeoutMs: 480_000, intervalMs: 1000, message: `${RUNS} runs succeeded` },
      );
      expect(ended).toHaveLength(RUNS);
      await waitFor(() => watch!.started().length === RUNS, {
        timeoutMs: 30_000,
        message: 'the watch saw every run start',
      });

      expect(watch.gaps(), 'the watch saw every change').toBe(0);
      expect(watch.maxInProgress()).toBe(LIMIT);
      // First in first out: slots were given in the order the starts were written (admitted or queued) on the operator.
      const counted = watch.entered(SCENARIO);
      expect(counted).toHaveLength(RUNS);
      expect(watch.granted(SCENARIO)).toEqual(counted);
      expect(new Set(watch.started())).toEqual(new Set(counted));
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, queued: 0, succeeded: RUNS, failed: 0, holders: [], queue: [] });
    },
  );

  it(
    'a request at the limit whose run was created but not counted (a crash) is queued once when delivered again; the janitor frees the slot of a run deleted in flight and starts the next',
    { timeout: 300_000 },
    async () => {
      const forever = [imageModule('grayscale', {}, { delayMs: 3_600_000 })];
      h = await cascadeHarness({ modules: forever, operatorSpec: { maxConcurrentRuns: 1 } });
      const first = await post(h.url(), request(1));
      expect(first).toMatchObject({ status: 200, body: { phase: 'Pending' } });
      const a = String(first.body['run']);

      // The process died after creating run b, before counting its start.
      const b = await createRun({ custom: h.custom, ns: h.ns }, SCENARIO, { iuid: iuid(2), modules: forever });
      for (let i = 0; i < 2; i++)
        expect(await post(h.url(), request(2))).toMatchObject({ status: 200, body: { run: b, phase: 'Queued' } });
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 1, queued: 1, holders: [a], queue: [b] });
      // The reply leaves once the run is counted; its status follows.
      const queued = await waitFor(
        async () => {
          const run = await h!.getRun(b);
          return run.status?.phase === 'Queued' ? run : undefined;
        },
        { message: `run ${b} Queued` },
      );
      expect(queued.status?.conditions?.find((c) => c.type === 'Succeeded')).toMatchObject({
        status: 'Unknown',
        reason: 'Queued',
      });
      expect(queued.status?.startTime).toBeUndefined();
      expect([...h.jobs.keys()].filter((j) => j.endsWith(b.slice(SCENARIO.length + 1)))).toEqual([]);

      // Run a is deleted while it runs: nothing ends it, the janitor frees its slot and wakes b.
      await h.custom.deleteNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascaderuns', name: a });
      await waitFor(async () => !(await h!.listRuns()).some((r) => r.metadata.name === a), {
        message: `run ${a} gone`,
      });
      expect((await h.getRun(b)).status?.phase).toBe('Queued');
      await sweepOnce(h);
      expect((await h.getRun(b)).status?.phase).toBe('Running');
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 1, queued: 0, holders: [b], queue: [] });
    },
  );

  it(
    'the janitor starts a queued run whose wake-up was lost (its slot written, the process gone before it started the run)',
    { timeout: 300_000 },
    async () => {
      const forever = [imageModule('grayscale', {}, { delayMs: 3_600_000 })];
      h = await cascadeHarness({ modules: forever, operatorSpec: { maxConcurrentRuns: 1 } });
      const a = String((await post(h.url(), request(1))).body['run']);
      const queued = await post(h.url(), request(2));
      expect(queued).toMatchObject({ status: 200, body: { phase: 'Queued' } });
      const b = String(queued.body['run']);
      await waitFor(async () => (await h!.getRun(b)).status?.phase === 'Queued', { message: `run ${b} Queued` });
      await waitFor(async () => (await h!.getRun(a)).status?.phase === 'Running', { message: `run ${a} Running` });
      // What an end of run a leaves when its process dies right after the counter write: b holds the slot, still Queued.
      await h.custom.deleteNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascaderuns', name: a });
      const op = await h.operator();
      await writeOperatorStatus(h, { ...op.status, active: 1, queued: 0, holders: [b], queue: [] });
      expect((await h.getRun(b)).status?.phase).toBe('Queued');

      const summary = await sweepOnce(h);
      expect(summary.errors).toBe(0);
      const started = await h.getRun(b);
      expect(started.status?.phase).toBe('Running');
      expect(started.status?.modules?.[0]?.phase).toBe('Running');
      await h.recorded([started.status!.modules![0]!.jobName]);
    },
  );
});
