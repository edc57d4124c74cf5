// kubectl-cascade lint: the function's schema, then a server-side dry run of
// each module's Job on the real API server; nothing is created.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { dump } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { adminKubeConfig, createTestNamespace } from './support/kube.ts';
import { tempDir } from '../local/temp-dir.ts';

let ns: string;
const dir = tempDir('cascade-lint-');
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
beforeAll(async () => {
  ns = await createTestNamespace('cascade-lint');
});

describe('kubectl-cascade lint', () => {
  it('passes a valid scenario, JSON or a CascadeAutoOperator in YAML, creating nothing', async () => {
    const ok = await cli(['lint', file('ok.json', { cascademodules: successScenario() })], { namespace: ns });
    expect(ok).toMatchObject({
      code: 0,
      stderr: '',
      stdout: `${join(dir, 'ok.json')}: 3 module(s) valid (schema, and the CascadeAutoOperator and each Job dry-run in namespace ${ns})\n`,
    });
    const cao = {
      apiVersion: 'cascade.cascade.net/v1alpha1',
      kind: 'CascadeAutoOperator',
      metadata: { name: 'demo' },
      spec: { scenarioconfig: { cascademodules: successScenario() } },
    };
    expect(await cli(['lint', file('cao.yaml', dump(cao))], { namespace: ns })).toMatchObject({ code: 0, stderr: '' });
    const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: ns });
    expect(jobs.items).toEqual([]);
  });

  it('names the module and field of each schema error', async () => {
    const [a, b] = successScenario();
    const bad = {
      cascademodules: [
        { ...a, backoffLimit: -1 },
        { ...b, template: { spec: { containers: [] } } },
        { template: a!.template },
      ],
    };
    const r = await cli(['lint', file('bad-schema.json', bad)], { namespace: ns });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const path = join(dir, 'bad-schema.json');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${path}: module grayscale: backoffLimit: `)),
      expect.stringMatching(new RegExp(`^${path}: module binarization: template\\.spec\\.containers: `)),
      `${path}: module cascademodules[2]: modulename: required field is missing`,
    ]);
  });

  it("names the module and field of each error of the API server's dry run", async () => {
    const [a, b, c] = successScenario();
    const badImage = {
      ...b!,
      template: {
        ...b!.template,
        spec: { ...b!.template.spec, containers: [{ name: 'binarization', image: 'x', imagePullPolicy: 'Sometimes' }] },
      },
    };
    const badEnv = { ...c!, configuration: { 'bad name=': 'x' } };
    const r = await cli(['lint', file('bad-dry-run.json', { cascademodules: [a, badImage, badEnv] })], {
      namespace: ns,
    });
    const path = join(dir, 'bad-dry-run.json');
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${path}: module binarization: template\\.spec\\.containers\\[0\\]\\.imagePullPolicy: Unsupported value: "Sometimes"`,
        ),
      ),
      expect.stringMatching(new RegExp(`^${path}: module diff: configuration\\.bad name=: Invalid value: "bad name="`)),
    ]);
  });

  it('says what is wrong with a file it cannot read', async () => {
    const r = await cli(['lint', file('broken.yaml', 'cascademodules: [')], { namespace: ns });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error: .*broken\.yaml: not JSON or YAML: /);
    expect(await cli(['lint', join(dir, 'none.json')], { namespace: ns })).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: cannot read .*none\.json: ENOENT/),
    });
  });
});
