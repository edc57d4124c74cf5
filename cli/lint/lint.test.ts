import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program.ts';
import { lintJobs } from './jobs.ts';
import {
  dryRunErrors,
  formatLintError,
  manifestErrors,
  mergeErrors,
  moduleField,
  scenarioInput,
  scenarioInputs,
  schemaErrors,
} from './report.ts';

const module = (modulename: string, extra: object = {}) => ({
  modulename,
  template: { spec: { containers: [{ name: modulename, image: 'x' }] } },
  ...extra,
});

describe('lint: the file', () => {
  it('takes a scenario or a CascadeAutoOperator, JSON or YAML', () => {
    expect(scenarioInput('{"cascademodules":[]}')).toEqual({ ok: true, input: { cascademodules: [] } });
    expect(
      scenarioInput(
        'kind: CascadeAutoOperator\nmetadata: {name: demo}\nspec:\n  scenarioconfig: {cascademodules: []}\n',
      ),
    ).toEqual({
      ok: true,
      input: { cascademodules: [] },
      name: 'demo',
      manifest: {
        kind: 'CascadeAutoOperator',
        metadata: { name: 'demo' },
        spec: { scenarioconfig: { cascademodules: [] } },
      },
    });
    expect(scenarioInput('a: [')).toMatchObject({ ok: false, message: expect.stringMatching(/^not JSON or YAML: /) });
  });
});

describe('lint: the schema', () => {
  it('every issue under its module (by name, else by place) and field', () => {
    const { errors } = schemaErrors({ cascademodules: [module('a', { backoffLimit: -1 }), { template: {} }] });
    expect(errors.map(formatLintError)).toEqual([
      expect.stringMatching(/^module a: backoffLimit: /),
      'module cascademodules[1]: modulename: required field is missing',
      'module cascademodules[1]: template.spec: required field is missing',
    ]);
    expect(schemaErrors({}).errors.map(formatLintError)).toEqual([
      'scenario: cascademodules: required field is missing',
    ]);
    expect(schemaErrors({ cascademodules: [module('a')] })).toMatchObject({
      errors: [],
      scenario: { cascademodules: [{ modulename: 'a' }] },
    });
  });
});

describe('lint: the Jobs and their dry run', () => {
  it("builds each valid module's Job with the function's manifest code, without an owner", () => {
    const jobs = lintJobs([module('a', { configuration: { K: 'v' } }), { bad: true }, module('c')], 'ns', 'demo');
    expect(jobs.map((j) => j.index)).toEqual([0, 2]);
    expect(jobs[0]!.job.metadata).toMatchObject({ namespace: 'ns' });
    expect(jobs[0]!.job.metadata).not.toHaveProperty('ownerReferences');
    expect(jobs[0]!.job.spec?.template.spec?.containers[0]?.env?.[0]).toEqual({ name: 'K', value: 'v' });
    expect(jobs[1]!.job.spec?.template.spec?.containers[0]?.env?.some((e) => e.name === 'finalstage')).toBe(true);
    expect(lintJobs('nope', 'ns', 'demo')).toEqual([]);
  });

  it("maps the Job's fields back to the module's", () => {
    const env = [{ name: 'K' }, { name: 's3path' }];
    expect(moduleField('spec.template.spec.containers[0].env[0].name', env, { K: 'v' })).toBe('configuration.K');
    expect(moduleField('spec.template.spec.containers[0].env[1].value', env, { K: 'v' })).toBe(
      'template.spec.containers[0].env[1].value',
    );
    expect(moduleField('spec.template.spec.containers[0].image', env)).toBe('template.spec.containers[0].image');
    expect(moduleField('spec.backoffLimit', env)).toBe('backoffLimit');
    expect(moduleField('metadata.name', env)).toBe("modulename (the Job's metadata.name)");
    expect(moduleField('', env)).toBe('(Job)');
  });

  it('names every cause of a refused dry run, or its message when it has none', () => {
    const status = {
      message: 'Job.batch "x" is invalid',
      details: { causes: [{ field: 'spec.template.spec.containers[0].image', message: 'Required value' }] },
    };
    expect(dryRunErrors('m', status, [])).toEqual([
      { module: 'm', field: 'template.spec.containers[0].image', message: 'Required value' },
    ]);
    expect(dryRunErrors('m', { message: 'forbidden' }, [])).toEqual([
      { module: 'm', field: '(Job)', message: 'forbidden' },
    ]);
  });
});

describe("lint: the CascadeAutoOperator's dry run", () => {
  const input = { cascademodules: [module('grayscale'), module('diff')] };

  it('names the module and field of each unknown field that strict validation refuses', () => {
    const status = {
      message:
        'CascadeAutoOperator in version "v1alpha1" cannot be handled as a CascadeAutoOperator: strict decoding error: unknown field "spec.scenarioconfig.cascademodules[1].backoffLimt", unknown field "spec.extra"',
    };
    expect(manifestErrors(input, status).map(formatLintError)).toEqual([
      "module diff: backoffLimt: unknown field (the API server's strict field validation refuses it)",
      "scenario: spec.extra: unknown field (the API server's strict field validation refuses it)",
    ]);
  });

  it('names each cause of a 422 under its module; a refusal without fields as it is', () => {
    const status = {
      details: { causes: [{ field: 'spec.scenarioconfig.cascademodules[0].backoffLimit', message: 'should be >= 0' }] },
    };
    expect(manifestErrors(input, status)).toEqual([
      { module: 'grayscale', field: 'backoffLimit', message: 'should be >= 0' },
    ]);
    expect(manifestErrors(input, { message: 'forbidden' })).toEqual([
      { field: '(CascadeAutoOperator)', message: 'forbidden' },
    ]);
  });

  it("says each error once: the schema's first, then the server's on other fields", () => {
    const schema = [{ module: 'grayscale', field: 'backoffLimit', message: 'schema' }];
    const server = [
      { module: 'grayscale', field: 'backoffLimit', message: 'server' },
      { module: 'diff', field: 'x', message: 'server' },
    ];
    expect(mergeErrors(schema, server)).toEqual([schema[0], server[1]]);
    expect(mergeErrors([], [...server, { module: 'diff', field: 'x', message: "the Job's" }])).toEqual(server);
  });
});

describe('lint --offline of several files', () => {
  it("lints each document of each file, a directory's YAML and JSON files, and exits 1 when any has an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cascade-lint-'));
    try {
      writeFileSync(join(dir, 'a.json'), JSON.stringify({ cascademodules: [module('a')] }));
      writeFileSync(
        join(dir, 'b.yaml'),
        'cascademodules:\n- modulename: b\n  backoffLimit: -1\n  template: {spec: {containers: [{name: b, image: x}]}}\n---\nkind: CascadeAutoOperator\nmetadata: {name: c}\nspec: {scenarioconfig: {cascademodules: [{modulename: c, template: {spec: {containers: [{name: c}]}}}]}}\n',
      );
      writeFileSync(join(dir, 'notes.txt'), 'not linted');
      let out = '';
      let err = '';
      const io = {
        out: {
          write: (s: string) => {
            out += s;
          },
        },
        err: {
          write: (s: string) => {
            err += s;
          },
        },
        env: {},
        now: Date.now,
      };
      expect(await runCli(['lint', '--offline', dir, join(dir, 'none.json')], io)).toBe(1);
      expect(out).toBe(
        `${join(dir, 'a.json')}: 1 module(s) valid (schema only, offline)\n${join(dir, 'b.yaml')}#2: 1 module(s) valid (schema only, offline)\n`,
      );
      expect(err.split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^${join(dir, 'b.yaml')}#1: module b: backoffLimit: `)),
        expect.stringMatching(new RegExp(`^error: cannot read ${join(dir, 'none.json')}: ENOENT`)),
        '',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads every document of a multi-document YAML, empty ones left out', () => {
    expect(
      scenarioInputs(
        '---\ncascademodules: []\n---\n---\nkind: CascadeAutoOperator\nmetadata: {name: x}\nspec: {scenarioconfig: {cascademodules: []}}\n',
      ),
    ).toMatchObject({
      ok: true,
      docs: [{ input: { cascademodules: [] } }, { name: 'x', input: { cascademodules: [] } }],
    });
    expect(scenarioInputs('a: [')).toMatchObject({ ok: false });
  });
});
