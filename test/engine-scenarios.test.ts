// The Go controller's two test scenarios, run by Cascade against the real
// control plane: kwok runs the pods, the function runs as a real process
// under its own ServiceAccount, Job changes reach it as ApiServerSource events.
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, OUT, post, SCENARIO } from './support/cascade-harness.ts';
import { failSecondScenario, successScenario } from './fixtures/scenarios.ts';
import { adminKubeConfig } from './support/kube.ts';

const IUID = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';
const RUN = `${SCENARIO}-33e65`;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

function env(job: V1Job): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of job.spec?.template.spec?.containers[0]?.env ?? [])
    out[e.name] = e.value ?? `<${e.valueFrom?.fieldRef?.fieldPath}>`;
  return out;
}

function onlyJob(h: Harness, name: string): V1Job {
  const byUid = h.jobs.get(name);
  expect(byUid?.size, `Job ${name} created once`).toBe(1);
  return [...byUid!.values()][0]!;
}

const stage = (i: number) => `${OUT}${SCENARIO}/${IUID}/${IUID}-stage-${i}.zip`;

describe('the Go controller scenarios', () => {
  it('three modules succeeding: final address, counters, Jobs deleted, environment of every Job', async () => {
    h = await cascadeHarness({ modules: successScenario(300) });
    const reply = await post(h.url(), { turlinfo: 's3://incoming/in.tgz', iuid: IUID, oname: 'org', sname: 'src' });
    expect(reply).toMatchObject({ status: 200, body: { run: RUN } });
    for (const module of ['grayscale', 'binarization', 'diff']) {
      await expect.poll(() => h!.jobs.has(`${SCENARIO}-${module}-33e65`), { timeout: 30_000 }).toBe(true);
      await post(h.url(), { runname: RUN, modulename: module, moduleresult: 'success' });
    }
    const run = await h.waitEnded(RUN);
    expect(run.spec).toMatchObject({
      ob: 'org',
      src: 'src',
      pid: IUID,
      scenarioname: SCENARIO,
      modules: ['grayscale', 'binarization', 'diff'],
    });
    expect(run.status).toMatchObject({
      phase: 'Succeeded',
      info: `${OUT}${SCENARIO}/${IUID}/${IUID}-final.zip`,
      result: ['grayscale: success\n', 'binarization: success\n', 'diff: success\n'],
    });
    expect(run.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'True', reason: 'Succeeded' }),
    );
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0, result: 'Success' });

    expect(env(onlyJob(h, `${SCENARIO}-grayscale-33e65`))).toEqual({
      foo: 'bar',
      spamm: 'eggs',
      test1: 'test2',
      s3path: 's3://incoming/in.tgz',
      NAMESPACE: '<metadata.namespace>',
      SCENARIONAME: SCENARIO,
    });
    expect(env(onlyJob(h, `${SCENARIO}-binarization-33e65`))).toEqual({
      eggs: 'spamm',
      test2: 'test1',
      thresh: '128',
      s3path: stage(1),
      NAMESPACE: '<metadata.namespace>',
      SCENARIONAME: SCENARIO,
    });
    const last = onlyJob(h, `${SCENARIO}-diff-33e65`);
    expect(env(last)).toEqual({
      bar: 'foo',
      eggs: 'spamm',
      test2: 'test1',
      s3path: stage(2),
      finalstage: 'true',
      NAMESPACE: '<metadata.namespace>',
      SCENARIONAME: SCENARIO,
    });
    expect(last.metadata?.labels).toMatchObject({
      app: 'Cascade',
      modulename: 'diff-33e65',
      'cascade.cascade.net/run': RUN,
      'cascade.cascade.net/step': '2',
    });
    expect(last.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'CascadeRun', name: RUN, uid: run.metadata.uid });
    expect(h.jobs.size).toBe(3);

    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    await expect
      .poll(
        async () =>
          (await batch.listNamespacedJob({ namespace: h!.ns })).items.filter((j) => !j.metadata?.deletionTimestamp)
            .length,
        { timeout: 20_000 },
      )
      .toBe(0);
  });

  it('failure at module 2: run Failed, failed Job kept, nothing after it', async () => {
    h = await cascadeHarness({ modules: failSecondScenario(200) });
    expect((await post(h.url(), { turlinfo: 's3://incoming/in.tgz', iuid: IUID })).status).toBe(200);
    const run = await h.waitEnded(RUN);
    expect(run.status).toMatchObject({ phase: 'Failed', info: 'Failed', currentModule: 'fail', currentStep: 1 });
    expect(run.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason: 'ModuleFailed' }),
    );
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Failed', 'Pending']);
    await expect
      .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 0, failed: 1, result: 'Fail' });
    expect([...h.jobs.keys()].sort()).toEqual([`${SCENARIO}-fail-33e65`, `${SCENARIO}-grayscale-33e65`]);
    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    await expect
      .poll(
        async () =>
          (await batch.listNamespacedJob({ namespace: h!.ns })).items
            .filter((j) => !j.metadata?.deletionTimestamp)
            .map((j) => j.metadata?.name),
        { timeout: 20_000 },
      )
      .toEqual([`${SCENARIO}-fail-33e65`]);
  });
});
