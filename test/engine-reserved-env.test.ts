// The computed environment names (s3path, finalstage, NAMESPACE, SCENARIONAME)
// are reserved on every step: a configuration key repeating one is dropped,
// so a module before the last cannot claim to be final. Checked on the Jobs
// the function creates on the real API server.
import { BatchV1Api, type V1EnvVar } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

const IUID = 'f1a15-reserved';
const RUN = `${SCENARIO}-f1a15`;
const claims = { keep: 'me', finalstage: 'true', s3path: 's3://elsewhere/', SCENARIONAME: 'other' };
let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({
    modules: [imageModule('first', claims, { delayMs: 600_000 }), imageModule('last', claims, { delayMs: 600_000 })],
    source: false,
  });
});
afterAll(async () => {
  await h?.stop();
});

const batch = adminKubeConfig().makeApiClient(BatchV1Api);
/** The Job's env, once it exists: a run request is answered before its first Job is created. */
async function envOf(job: string): Promise<V1EnvVar[]> {
  const read = await waitFor(() => batch.readNamespacedJob({ namespace: h.ns, name: job }).catch(() => undefined), {
    message: `Job ${job} created`,
  });
  return read.spec?.template.spec?.containers[0]?.env ?? [];
}

describe('the computed names are reserved on every step', () => {
  it('the Job of a module before the last has no finalstage, whatever its configuration says', async () => {
    expect(await post(h.url(), { turlinfo: 's3://incoming/in.tgz', iuid: IUID })).toMatchObject({
      status: 200,
      body: { run: RUN },
    });
    expect(await envOf(`${SCENARIO}-first-f1a15`)).toEqual([
      { name: 'keep', value: 'me' },
      { name: 's3path', value: 's3://incoming/in.tgz' },
      { name: 'NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'SCENARIONAME', value: SCENARIO },
    ]);
  });

  it('the last Job gets finalstage=true once, computed', async () => {
    expect(await post(h.url(), { runname: RUN, modulename: 'first', moduleresult: 'success' })).toMatchObject({
      status: 200,
    });
    const env = await envOf(`${SCENARIO}-last-f1a15`);
    expect(env.filter((e) => e.name === 'finalstage' || e.name === 's3path' || e.name === 'SCENARIONAME')).toEqual([
      { name: 's3path', value: `${OUT}${SCENARIO}/${IUID}/${IUID}-stage-1.zip` },
      { name: 'finalstage', value: 'true' },
      { name: 'SCENARIONAME', value: SCENARIO },
    ]);
    expect(h.fns[0]!.output()).not.toMatch(/"level":(50|60)/);
  });
});
