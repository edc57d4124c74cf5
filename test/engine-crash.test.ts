// The function is stateless: killed between any two API calls, with the
// events delivered again as a broker would, a run ends as a clean run does,
// each Job created once and each counter change applied once. The engine runs
// in-process against the real API server, under the function's own
// ServiceAccount, with a Store that dies at its n-th call (before or after it)
// for every n a clean run makes.
import { BatchV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { observeRun } from '../shared/engine/entry/observe-run.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import type { Outcome } from '../shared/engine/entry/outcome.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { connectStore } from '../shared/kube/connect.ts';
import type { Store } from '../shared/kube/store.ts';
import { LABEL_RUN, LABEL_STEP } from '../shared/names.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, SCENARIO } from './support/cascade-harness.ts';
import { Crash, crashingStore } from './support/crashing-store.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';

let h: Harness;
let real: Store;
let config: EngineDeps['config'];
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('a', {}), imageModule('b', {})], replicas: 0, source: false });
  const parsed = parseConfig(h.env);
  if (!parsed.ok) throw new Error(parsed.reason);
  config = parsed.value;
  real = connectStore(config.namespace, DEFAULT_RETRY, h.env.KUBECONFIG);
});
afterAll(async () => {
  await h?.stop();
});

const deps = (store: Store): EngineDeps =>
  janitorEngine({ config, store, log: pino({ level: 'silent' }), now: () => new Date(), notify: async () => false });

/** The Job of the run's current step has finished (what an ApiServerSource event would announce). */
async function jobFinished(run: string): Promise<boolean> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  return waitFor(
    async () => {
      const status = (await h.getRun(run)).status;
      if (status?.notified) return true;
      const step = status?.currentStep ?? 0;
      const jobs = await batch.listNamespacedJob({
        namespace: h.ns,
        labelSelector: `${LABEL_RUN}=${run},${LABEL_STEP}=${step}`,
      });
      return jobs.items.some((j) =>
        j.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True'),
      );
    },
    { timeoutMs: 30_000, message: `a Job of ${run} finished` },
  );
}

/**
 * Plays one run: the run request, then one "Job changed" delivery each time
 * the current Job finished. The first delivery that meets the crash is
 * delivered again on a healthy process, and every later one goes there too.
 * Returns how many API calls the crashing process made.
 */
async function play(iuid: string, crashAt: number, when: 'before' | 'after'): Promise<{ calls: number; run: string }> {
  const dying = crashingStore(real, crashAt, when);
  const deliver = async (send: (d: EngineDeps) => Promise<Outcome>): Promise<Outcome> => {
    if (!dying.crashed()) {
      try {
        return await send(deps(dying.store));
      } catch (error) {
        if (!(error instanceof Crash)) throw error;
      }
    }
    return send(deps(real));
  };
  const started = await deliver((d) => startRun(d, { turlinfo: `s3://in/${iuid}`, iuid }));
  if (started.kind !== 'accepted') throw new Error(`run request not accepted: ${JSON.stringify(started)}`);
  const run = String(started.body.run);
  for (let i = 0; i < 4 && !(await h.getRun(run)).status?.notified; i++) {
    await jobFinished(run);
    await deliver((d) => observeRun(d, run));
  }
  return { calls: dying.calls(), run };
}

describe('a crash between any two API calls', () => {
  it(
    'ends every run as a clean one, each Job created once, each counter change once',
    { timeout: 600_000 },
    async () => {
      const clean = await play('c1ea0-000', Number.POSITIVE_INFINITY, 'before');
      const total = clean.calls;
      expect(total).toBeGreaterThan(10);
      const cases = Array.from({ length: total }, (_, i) => i + 1).flatMap(
        (n) =>
          [
            [n, 'before'],
            [n, 'after'],
          ] as const,
      );
      const runs: string[] = [clean.run];
      for (let i = 0; i < cases.length; i += 8) {
        const batch = cases
          .slice(i, i + 8)
          .map(([n, when]) => play(`${when === 'before' ? 'b' : 'a'}${String(n).padStart(3, '0')}0-x`, n, when));
        runs.push(...(await Promise.all(batch)).map((r) => r.run));
      }
      for (const name of runs) {
        const run = await h.getRun(name);
        expect({
          name,
          phase: run.status?.phase,
          notified: run.status?.notified,
          modules: run.status?.modules?.map((m) => m.phase),
        }).toEqual({ name, phase: 'Succeeded', notified: true, modules: ['Succeeded', 'Succeeded'] });
      }
      expect(new Set(runs).size).toBe(runs.length);
      expect(h.jobs.size).toBe(runs.length * 2);
      expect([...h.jobs].filter(([, byUid]) => byUid.size !== 1).map(([n]) => n)).toEqual([]);
      // No function process runs here: the janitor's sweep writes the counters from the runs.
      await sweep(deps(real), new Date());
      await expect
        .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: runs.length, failed: 0 });
      expect(runs.every((r) => r.startsWith(`${SCENARIO}-`))).toBe(true);
    },
  );
});
