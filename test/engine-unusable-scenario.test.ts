// A run request when the scenario cannot be used (README: 500, reason given):
// no CascadeAutoOperator, and the CONFIG_PATH file is missing, not JSON, or
// not a scenario. Each is answered 500 with a one-line reason naming the
// file, nothing is created, and a usable file is taken up at the next request
// (the file is read for every run request, as the Go controller did).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { tempDir } from '../local/temp-dir.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const file = join(tempDir('cascade-unusable-'), 'configuration.json');
let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [], from: 'file', source: false, env: { CONFIG_PATH: file } });
});
afterAll(async () => {
  await h?.stop();
});

async function created(): Promise<{ runs: number; jobs: number }> {
  const runs = (await h.custom.listNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascaderuns' })) as {
    items: unknown[];
  };
  const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
  return { runs: runs.items.length, jobs: jobs.items.length };
}

describe('an unusable scenario', () => {
  it.each<[string, string | undefined, RegExp]>([
    ['a missing file', undefined, /cannot read the scenario file .*configuration\.json: ENOENT/],
    ['a file that is not JSON', '{"cascademodules": [', /the scenario file .*configuration\.json is not JSON/],
    ['a file without modules', '{"cascademodules": []}', /configuration\.json: cascademodules/],
    [
      'a module without template',
      '{"cascademodules": [{"modulename": "a"}]}',
      /configuration\.json: cascademodules\[0\]\.template/,
    ],
  ])('%s: 500 with the reason, nothing created', async (_name, content, reason) => {
    if (content === undefined) rmSync(file, { force: true });
    else writeFileSync(file, content);
    const reply = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'b0b01-unusable' });
    expect(reply.status).toBe(500);
    const error = String(reply.body.error);
    expect(error).toMatch(/^the scenario is not usable: /);
    expect(error).toMatch(reason);
    expect(error.split('\n')).toHaveLength(1);
    expect(await created()).toEqual({ runs: 0, jobs: 0 });
  });

  it('a usable file is taken up at the next request', async () => {
    writeFileSync(file, JSON.stringify({ cascademodules: successScenario(600_000) }));
    expect(await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'b0b01-unusable' })).toMatchObject({
      status: 200,
      body: { run: `${SCENARIO}-b0b01` },
    });
    // The first Job is created after the reply (docs/contract.md).
    const made = await waitFor(async () => {
      const now = await created();
      return now.jobs > 0 && now;
    });
    expect(made).toEqual({ runs: 1, jobs: 1 });
  });
});
