// The CascadeAutoOperator's finalizer, with the function and the janitor as
// real processes under their own ServiceAccounts: the function adds it before
// the operator's first run; deleting the operator during runs leaves it in
// place (deletionTimestamp set) while new run requests get 503 and nothing is
// created, results and Job events of the runs in flight are still served and
// counted; once they ended, the janitor lets it go. Then the scenario comes
// from the CONFIG_PATH file, said so in the reply, on the run and in a warning,
// and without a file a run request gets the documented 500.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { FINALIZER } from '../shared/api/group.ts';
import { ANNOTATION_SCENARIO_SOURCE } from '../shared/names.ts';
import { imageModule, successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { janitorEnv, runJanitorProcess, type JanitorExit } from './support/janitor.ts';
import { adminKubeConfig, apiStatus, waitFor } from './support/kube.ts';
import { tempDir } from '../local/temp-dir.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const ERROR_LINE = /"level":(50|60)/;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** Two steps that wait for their module result, and a last one kwok completes at once (its end comes as Job events). */
const modules = [
  imageModule('grayscale', {}, { delayMs: 600_000 }),
  imageModule('binarization', {}, { delayMs: 600_000 }),
  imageModule('diff', {}, { delayMs: 0 }),
];

async function janitor(ns: string): Promise<{ exit: JanitorExit; summary: Record<string, unknown> }> {
  const exit = await runJanitorProcess(await janitorEnv(ns, { LOG_LEVEL: 'info' }));
  expect(exit.code, exit.stderr).toBe(0);
  expect(exit.stderr).not.toMatch(ERROR_LINE);
  return { exit, summary: JSON.parse(exit.stdout.trim()) as Record<string, unknown> };
}

async function created(hh: Harness): Promise<{ runs: string[]; jobs: string[] }> {
  const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: hh.ns });
  return {
    runs: (await hh.listRuns()).map((r) => r.metadata.name).sort(),
    jobs: jobs.items.map((j) => j.metadata?.name ?? '').sort(),
  };
}

const operatorGone = (hh: Harness) =>
  waitFor(
    () =>
      hh.operator().then(
        () => false,
        (e: unknown) => apiStatus(e) === 404,
      ),
    { message: 'CascadeAutoOperator gone' },
  );

describe('the CascadeAutoOperator finalizer', () => {
  it(
    'holds the operator while runs are in flight, refuses new runs meanwhile, then lets it go',
    { timeout: 180_000 },
    async () => {
      const file = join(tempDir('cascade-fallback-'), 'configuration.json');
      h = await cascadeHarness({ modules, env: { CONFIG_PATH: file } });
      const hh = h;
      expect((await hh.operator()).metadata.finalizers ?? []).toEqual([]);

      // Two runs under the operator: the first adds the finalizer.
      const a = await post(hh.url(), { turlinfo: 's3://in/a.tgz', iuid: 'a11ce-0001' });
      expect(a).toMatchObject({
        status: 200,
        body: { run: `${SCENARIO}-a11ce`, scenario: `CascadeAutoOperator/${SCENARIO}` },
      });
      expect((await hh.operator()).metadata.finalizers).toEqual([FINALIZER]);
      const b = await post(hh.url(), { turlinfo: 's3://in/b.tgz', iuid: 'b0b00-0002' });
      expect(b).toMatchObject({ status: 200, body: { run: `${SCENARIO}-b0b00` } });
      expect((await hh.getRun(`${SCENARIO}-a11ce`)).metadata.annotations).toMatchObject({
        [ANNOTATION_SCENARIO_SOURCE]: `CascadeAutoOperator/${SCENARIO}`,
      });
      await expect.poll(async () => (await hh.operator()).status, COUNTERS_SETTLE).toMatchObject({ active: 2 });

      // Deleted during the runs: it stays, marked for deletion.
      await hh.custom.deleteNamespacedCustomObject({
        ...G,
        namespace: hh.ns,
        plural: 'cascadeautooperators',
        name: SCENARIO,
      });
      const going = await hh.operator();
      expect(going.metadata.deletionTimestamp).toBeDefined();
      expect(going.metadata.finalizers).toEqual([FINALIZER]);
      const before = await created(hh);

      // A run request meanwhile: 503 with a one-line reason, nothing created.
      const refused = await post(hh.url(), { turlinfo: 's3://in/c.tgz', iuid: 'c0c00-0003' });
      expect(refused).toMatchObject({
        status: 503,
        body: { error: `CascadeAutoOperator ${SCENARIO} is being deleted: no new runs` },
      });
      expect(await created(hh)).toEqual(before);

      // The janitor keeps it while runs are active.
      expect((await janitor(hh.ns)).summary).toMatchObject({
        active: 2,
        finalizerRemoved: false,
        finalizerAdded: false,
        errors: 0,
      });
      expect((await hh.operator()).metadata.finalizers).toEqual([FINALIZER]);

      // Results and Job events of the runs in flight are served and counted: b fails, a succeeds (its last step through Job events).
      expect(
        await post(hh.url(), { runname: `${SCENARIO}-b0b00`, modulename: 'grayscale', moduleresult: 'failed' }),
      ).toMatchObject({ status: 200 });
      expect((await hh.waitEnded(`${SCENARIO}-b0b00`)).status?.phase).toBe('Failed');
      expect(
        await post(hh.url(), { runname: `${SCENARIO}-a11ce`, modulename: 'grayscale', moduleresult: 'success' }),
      ).toMatchObject({ status: 200 });
      expect(
        await post(hh.url(), { runname: `${SCENARIO}-a11ce`, modulename: 'binarization', moduleresult: 'success' }),
      ).toMatchObject({ status: 200 });
      expect((await hh.waitEnded(`${SCENARIO}-a11ce`)).status?.phase).toBe('Succeeded');
      const counted = await hh.operator();
      expect(counted.metadata.deletionTimestamp).toBeDefined();
      expect(counted.status).toMatchObject({ active: 0, succeeded: 1, failed: 1, result: 'Success' });

      // No run needs it any more: the janitor lets it go.
      expect((await janitor(hh.ns)).summary).toMatchObject({ active: 0, finalizerRemoved: true, errors: 0 });
      await operatorGone(hh);

      // Gone, and no file at CONFIG_PATH: the documented 500, nothing created.
      const none = await post(hh.url(), { turlinfo: 's3://in/d.tgz', iuid: 'd0d00-0004' });
      expect(none.status).toBe(500);
      expect(String(none.body.error)).toMatch(
        /^the scenario is not usable: cannot read the scenario file .*configuration\.json/,
      );
      expect((await created(hh)).runs).toEqual(before.runs);

      // Gone, with a file: the run starts from it, and the reply, the run and a warning say so.
      writeFileSync(file, JSON.stringify({ cascademodules: successScenario(600_000) }));
      const fromFile = await post(hh.url(), { turlinfo: 's3://in/d.tgz', iuid: 'd0d00-0004' });
      expect(fromFile).toMatchObject({ status: 200, body: { run: `${SCENARIO}-d0d00`, scenario: `file:${file}` } });
      expect((await hh.getRun(`${SCENARIO}-d0d00`)).metadata.annotations).toMatchObject({
        [ANNOTATION_SCENARIO_SOURCE]: `file:${file}`,
      });
      expect(await post(hh.url(), { turlinfo: 's3://in/d.tgz', iuid: 'd0d00-0004' })).toMatchObject({
        status: 200,
        body: { run: `${SCENARIO}-d0d00`, scenario: `file:${file}` },
      });
      const log = hh.fns[0]!.output();
      expect(log.match(/not found: new runs take their scenario from the file at CONFIG_PATH/g)).toHaveLength(1);
      expect(log).not.toMatch(ERROR_LINE);
    },
  );

  it('the janitor adds the finalizer to an operator created while no run started', async () => {
    h = await cascadeHarness({ modules, replicas: 0, source: false });
    expect((await h.operator()).metadata.finalizers ?? []).toEqual([]);
    expect((await janitor(h.ns)).summary).toMatchObject({ finalizerAdded: true, finalizerRemoved: false, errors: 0 });
    expect((await h.operator()).metadata.finalizers).toEqual([FINALIZER]);
    expect((await janitor(h.ns)).summary).toMatchObject({ finalizerAdded: false, finalizerRemoved: false, errors: 0 });

    // Deleted with no run: the next sweep lets it go at once.
    await h.custom.deleteNamespacedCustomObject({
      ...G,
      namespace: h.ns,
      plural: 'cascadeautooperators',
      name: SCENARIO,
    });
    expect((await janitor(h.ns)).summary).toMatchObject({ active: 0, finalizerRemoved: true, errors: 0 });
    await operatorGone(h);
  });
});
