// A Job the API server refuses (422: a scenario whose second module has a pod
// template no Job may have, restartPolicy Always, which the CRD lets through):
// the run fails with JobCreationFailed and the API server's own words, its end
// is counted and recorded, the result that moved it is answered 200, and
// nothing is created for the refused step. The function is a real process.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, SCENARIO } from './support/cascade-harness.ts';
import { adminKubeConfig } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

function refusedModule() {
  const m = imageModule('refused', {}, { delayMs: 600_000 });
  return { ...m, template: { ...m.template, spec: { ...m.template.spec, restartPolicy: 'Always' } } };
}

describe('a Job the API server refuses', () => {
  it("fails the run with JobCreationFailed and the API server's reason; the request that moved it is answered 200", async () => {
    h = await cascadeHarness({
      modules: [imageModule('first', {}, { delayMs: 600_000 }), refusedModule(), imageModule('last', {})],
      source: false,
    });
    const started = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'f4a1e-refused' });
    expect(started).toMatchObject({ status: 200, body: { phase: 'Pending' } });
    const name = String(started.body.run);

    const moved = await post(h.url(), { runname: name, modulename: 'first', moduleresult: 'success' });
    expect(moved).toMatchObject({ status: 200, body: { verdict: 'applied', phase: 'Failed' } });

    const run = await h.waitEnded(name);
    expect(run.status).toMatchObject({ phase: 'Failed', info: 'Failed', currentModule: 'refused', currentStep: 1 });
    const condition = run.status?.conditions?.find((c) => c.type === 'Succeeded');
    expect(condition).toMatchObject({ status: 'False', reason: 'JobCreationFailed' });
    expect(condition?.message).toMatch(/^module refused \(step 2\): the API server refused the Job: .*restartPolicy/);
    expect(run.status?.modules?.map((m) => [m.phase, m.reason ?? ''])).toEqual([
      ['Succeeded', ''],
      ['Failed', 'JobCreationFailed'],
      ['Pending', ''],
    ]);
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1, result: 'Fail' });

    const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
    expect(jobs.items.filter((j) => !j.metadata?.deletionTimestamp).map((j) => j.metadata?.name)).toEqual([]);
    expect([...(await h.recorded([`${SCENARIO}-first-f4a1e`])).keys()]).toEqual([`${SCENARIO}-first-f4a1e`]);
  });
});
