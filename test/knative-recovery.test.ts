// Recovery on real Knative, without the janitor (its CronJob suspended): runs
// whose Job events were lost, and whose function pods were then killed, move
// within 10 s of a new pod being Ready. The new pod's first sync moves them
// (shared/engine/sync/first-sync.ts; ADR 0005): no event about them is left.
// - The Triggers of Job events are deleted while the runs' first modules run,
//   and the function pods that made those Jobs are killed, so no watch of a
//   maker moves the runs (ADR 0007) and their completions reach no one: the
//   runs wait, step 0 Running.
// - The Triggers come back, and every function pod is killed (grace period 0),
//   as a crash or an eviction does. A run request wakes the function if
//   Knative scaled it to zero meanwhile.
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { servicePods } from '../local/knative/serving/cascade-service.ts';
import { apiClient } from '../local/kube.ts';
import { forwardThroughDoor } from '../local/node/door.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { namespacePlacedModule as module } from '../local/node/real-modules.ts';
import { LABEL_RUN, LABEL_STEP } from '../shared/names.ts';
import { ended, requestRun, runOf, suspendJanitor, useKnativeCascade, waitRun } from './support/knative-cascade.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';
import { parseMetrics, samples, scrape } from './support/ops.ts';

/** A first module of 20 s, time to lose its Job's events and its maker; a second of 1 s. */
const SCENARIO = { cascademodules: [module('slow', { lines: '10', interval: '2' }), module('last', {})] };
const RUNS = 5;
const JOB_TRIGGERS = ['cascade-job-add', 'cascade-job-update', 'cascade-job-delete'];
const TRIGGERS = { group: 'eventing.knative.dev', version: 'v1', plural: 'triggers' };

const namespace = useKnativeCascade({ scenario: SCENARIO });
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Trigger {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: object;
}

/** Deletes the Triggers of Job events; resolves to a function that makes them again. */
async function loseJobEvents(): Promise<() => Promise<void>> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  const ns = namespace();
  const saved: Trigger[] = [];
  for (const name of JOB_TRIGGERS) {
    saved.push((await custom.getNamespacedCustomObject({ ...TRIGGERS, namespace: ns, name })) as Trigger);
    await custom.deleteNamespacedCustomObject({ ...TRIGGERS, namespace: ns, name });
  }
  return async () => {
    for (const t of saved) {
      const { name, labels, annotations } = t.metadata;
      const body = {
        apiVersion: 'eventing.knative.dev/v1',
        kind: 'Trigger',
        metadata: { name, labels, annotations },
        spec: t.spec,
      };
      await custom.createNamespacedCustomObject({ ...TRIGGERS, namespace: ns, body });
    }
  };
}

const live = (pods: V1Pod[]) => pods.filter((p) => !p.metadata?.deletionTimestamp);
const readyAt = (pod: V1Pod) =>
  pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;

/** The step-1 Job of each run, once it exists: its creation time, in ms. */
async function secondJobs(runs: string[]): Promise<number[] | false> {
  const batch = apiClient(adminKubeConfig(), BatchV1Api);
  const jobs = await batch.listNamespacedJob({ namespace: namespace(), labelSelector: `${LABEL_STEP}=1` });
  const made = runs.map((run) => jobs.items.find((j) => j.metadata?.labels?.[LABEL_RUN] === run));
  return made.every(Boolean) && made.map((j) => new Date(j!.metadata!.creationTimestamp!).getTime());
}

/** cascade_sync_moves_total over the function's pods that are Ready: one that is not has served no sync. */
async function syncMoves(): Promise<number> {
  let sum = 0;
  for (const pod of live(await servicePods(adminKubeconfigPath(), namespace(), 'cascade')).filter(readyAt)) {
    const metrics = await forwardThroughDoor(REAL_NODE.door, pod.status!.podIP!, 9095);
    // a pod that goes meanwhile closes its port: it counts nothing
    const text = await scrape(`http://127.0.0.1:${metrics.port}/metrics`)
      .catch(() => '')
      .finally(() => metrics.close());
    sum += samples(parseMetrics(text), 'cascade_sync_moves_total').reduce((s, x) => s + x.value, 0);
  }
  return sum;
}

/** Kills every live function pod, grace period 0, as a crash does; their uids. */
async function killFunctionPods(): Promise<Set<string | undefined>> {
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const killed = live(await servicePods(adminKubeconfigPath(), namespace(), 'cascade'));
  for (const pod of killed)
    await core.deleteNamespacedPod({ namespace: namespace(), name: pod.metadata!.name!, gracePeriodSeconds: 0 });
  return new Set(killed.map((p) => p.metadata!.uid));
}

describe('recovery on real Knative, without the janitor', () => {
  it(`${RUNS} runs whose Job events were lost move within 10 s of a new function pod being Ready`, async () => {
    await suspendJanitor(namespace(), true);
    const iuids = await Promise.all(Array.from({ length: RUNS }, () => requestRun(namespace())));
    const runs = await Promise.all(
      iuids.map((iuid) =>
        waitRun(namespace(), iuid, (r) => r.status?.modules?.[0]?.phase === 'Running', 'running step 0'),
      ),
    );
    const names = runs.map((r) => r.metadata.name);
    const restore = await loseJobEvents();
    await killFunctionPods();
    const batch = apiClient(adminKubeConfig(), BatchV1Api);
    await waitFor(
      async () => {
        const jobs = await batch.listNamespacedJob({ namespace: namespace(), labelSelector: `${LABEL_STEP}=0` });
        const done = jobs.items.filter((j) => names.includes(j.metadata!.labels![LABEL_RUN]!) && j.status?.succeeded);
        return done.length === RUNS;
      },
      { timeoutMs: 120_000, intervalMs: 1000, message: 'every first Job complete' },
    );
    // no event said so: the runs wait at step 0
    const waiting = await Promise.all(iuids.map((iuid) => runOf(namespace(), iuid)));
    expect(waiting.map((r) => r?.status?.modules?.map((m) => m.phase))).toEqual(
      Array(RUNS).fill(['Running', 'Pending']),
    );

    await restore();
    const gone = await killFunctionPods();
    // a run request wakes the function, had Knative scaled it to zero
    const wake = await requestRun(namespace());
    const ready = await waitFor(
      async () => {
        const pods = live(await servicePods(adminKubeconfigPath(), namespace(), 'cascade'));
        const times = pods.filter((p) => !gone.has(p.metadata!.uid)).flatMap((p) => readyAt(p) ?? []);
        return times.length > 0 && Math.min(...times.map((t) => new Date(t).getTime()));
      },
      { timeoutMs: 120_000, intervalMs: 500, message: 'a new function pod Ready' },
    );
    const made = await waitFor(() => secondJobs(names), {
      timeoutMs: 60_000,
      intervalMs: 500,
      message: 'every run moved to step 1',
    });
    const after = made.map((t) => (t - ready) / 1000);
    log(`knative-recovery: step 1's Jobs made ${after.join(', ')} s after the new pod was Ready (1 s resolution)`);
    // Ready's and creation's times are whole seconds: 10 s is at most 11 apart
    expect(Math.max(...after)).toBeLessThanOrEqual(11);
    // the new pod's first sync made those moves: its metrics say so, once scraped
    await waitFor(async () => (await syncMoves()) >= RUNS, {
      timeoutMs: 30_000,
      intervalMs: 1000,
      message: `the function's first sync counted ${RUNS} moves`,
    });
    const all = await Promise.all([...iuids, wake].map((iuid) => waitRun(namespace(), iuid, ended, 'ended')));
    expect(all.map((r) => r.status?.phase)).toEqual(Array(RUNS + 1).fill('Succeeded'));
    await suspendJanitor(namespace(), false);
  }, 600_000);
});
