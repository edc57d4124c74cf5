// The janitor lists runs and Jobs in pages (CASCADE_LIST_PAGE_SIZE): with a
// page of 2 and more runs and Jobs than a page, against the real API server,
// every run is listed once, the ones with something to do are read and moved
// exactly once, and the orphaned Jobs of every page are found.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import type { PageRequest } from '../shared/kube/pages.ts';
import type { Store } from '../shared/kube/store.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { imageModule, KWOK_DELAY } from './fixtures/scenarios.ts';
import { cascadeHarness, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { createRun, janitorDeps, janitorKubeconfig } from './support/janitor.ts';
import { adminKubeConfig } from './support/kube.ts';

const batch = adminKubeConfig().makeApiClient(BatchV1Api);
const SLOW = [imageModule('slow', {}, { delayMs: 600_000 }), imageModule('after', {}, { delayMs: 0 })];
const PAGE = 2;
const RUNS = 5;
const ORPHANS = 3;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** The real Store, with what the sweep asked of it written down. */
function watched(real: Store) {
  const calls = {
    runPages: [] as PageRequest[],
    jobPages: [] as PageRequest[],
    listed: [] as string[],
    reads: [] as string[],
  };
  const store: Store = {
    ...real,
    pageRuns: async (request) => {
      calls.runPages.push(request);
      const page = await real.pageRuns(request);
      calls.listed.push(...page.items.map((r: CascadeRun) => r.metadata.name));
      return page;
    },
    pageJobs: async (request) => {
      calls.jobPages.push(request);
      return real.pageJobs(request);
    },
    getRun: async (name) => {
      calls.reads.push(name);
      return real.getRun(name);
    },
  };
  return { store, calls };
}

const sorted = (xs: string[]) => [...xs].sort();

describe('janitor sweep in pages', () => {
  it('sweeps more runs and Jobs than a page holds: each run listed once, each one to move read and moved once, every orphan found', async () => {
    h = await cascadeHarness({ modules: SLOW, source: false });
    const ns = h.ns;
    const kc = await janitorKubeconfig(ns);
    // never started: each needs its first Job, so each is read and moved by the sweep
    const runs: string[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await createRun(h, SCENARIO, { iuid: `page${i}-abc`, modules: SLOW }));
    const orphans = Array.from({ length: ORPHANS }, (_, i) => `ghost-job-${i}`);
    for (const name of orphans) {
      await batch.createNamespacedJob({
        namespace: ns,
        body: {
          metadata: { name, labels: { [LABEL_RUN]: `${SCENARIO}-ghost` } },
          spec: {
            backoffLimit: 0,
            template: {
              metadata: { annotations: { [KWOK_DELAY]: '600000' } },
              spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example/x:1' }] },
            },
          },
        },
      });
    }
    const deps = janitorDeps(kc, { ...h.env, CASCADE_LIST_PAGE_SIZE: String(PAGE) });
    expect(deps.config.listPageSize).toBe(PAGE);

    const first = watched(deps.store);
    const s = await sweep({ ...deps, store: first.store }, new Date());
    expect(s).toMatchObject({
      runsSeen: RUNS,
      runsHandled: RUNS,
      advanced: RUNS,
      active: RUNS,
      orphanJobsDeleted: ORPHANS,
      errors: 0,
    });
    expect(sorted(first.calls.listed)).toEqual(sorted(runs));
    expect(sorted(first.calls.reads)).toEqual(sorted(runs));
    expect(first.calls.runPages.length).toBeGreaterThanOrEqual(Math.ceil(RUNS / PAGE));
    expect(first.calls.jobPages.length).toBeGreaterThanOrEqual(Math.ceil(ORPHANS / PAGE));
    for (const request of [...first.calls.runPages, ...first.calls.jobPages]) expect(request.limit).toBe(PAGE);
    const jobs = await batch.listNamespacedJob({ namespace: ns, labelSelector: LABEL_RUN });
    const live = jobs.items.filter((j) => !j.metadata?.deletionTimestamp);
    // one Job per run, its first step's; the orphans gone
    expect(sorted(live.map((j) => j.metadata!.labels![LABEL_RUN]!))).toEqual(sorted(runs));
    for (const run of runs) expect((await h.getRun(run)).status).toMatchObject({ phase: 'Running', currentStep: 0 });

    // Each status was written before its Job: the next sweep records each Job's uid, moving no run.
    const second = watched(deps.store);
    expect(await sweep({ ...deps, store: second.store }, new Date())).toMatchObject({
      runsSeen: RUNS,
      runsHandled: RUNS,
      advanced: 0,
      active: RUNS,
      orphanJobsDeleted: 0,
      errors: 0,
    });
    for (const run of runs) expect((await h.getRun(run)).status?.modules?.[0]?.jobUid).toBeTruthy();

    // Every run now waits for its Job: listed again in pages, none read or moved.
    const third = watched(deps.store);
    expect(await sweep({ ...deps, store: third.store }, new Date())).toMatchObject({
      runsSeen: RUNS,
      runsHandled: 0,
      advanced: 0,
      active: RUNS,
      orphanJobsDeleted: 0,
      errors: 0,
    });
    expect(sorted(third.calls.listed)).toEqual(sorted(runs));
    expect(third.calls.reads).toEqual([]);
    expect(third.calls.jobPages.length).toBeGreaterThanOrEqual(Math.ceil(RUNS / PAGE));
  });
});
