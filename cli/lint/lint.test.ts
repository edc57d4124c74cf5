import { describe, expect, it } from 'vitest';
import { lintJobs } from './jobs.ts';
import { dryRunErrors, formatLintError, moduleField, scenarioInput, schemaErrors } from './report.ts';

const module = (modulename: string, extra: object = {}) => ({ modulename, template: { spec: { containers: [{ name: modulename, image: 'x' }] } }, ...extra });

describe('lint: the file', () => {
  it('takes a scenario or a CascadeAutoOperator, JSON or YAML', () => {
    expect(scenarioInput('{"cascademodules":[]}')).toEqual({ ok: true, input: { cascademodules: [] } });
    expect(scenarioInput('kind: CascadeAutoOperator\nmetadata: {name: demo}\nspec:\n  scenarioconfig: {cascademodules: []}\n')).toEqual({ ok: true, input: { cascademodules: [] }, name: 'demo' });
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
    expect(schemaErrors({}).errors.map(formatLintError)).toEqual(['scenario: cascademodules: required field is missing']);
    expect(schemaErrors({ cascademodules: [module('a')] })).toMatchObject({ errors: [], scenario: { cascademodules: [{ modulename: 'a' }] } });
  });
});

describe('lint: the Jobs and their dry run', () => {
  it('builds each valid module\'s Job with the function\'s manifest code, without an owner', () => {
    const jobs = lintJobs([module('a', { configuration: { K: 'v' } }), { bad: true }, module('c')], 'ns', 'demo');
    expect(jobs.map((j) => j.index)).toEqual([0, 2]);
    expect(jobs[0]!.job.metadata).toMatchObject({ namespace: 'ns' });
    expect(jobs[0]!.job.metadata).not.toHaveProperty('ownerReferences');
    expect(jobs[0]!.job.spec?.template.spec?.containers[0]?.env?.[0]).toEqual({ name: 'K', value: 'v' });
    expect(jobs[1]!.job.spec?.template.spec?.containers[0]?.env?.some((e) => e.name === 'finalstage')).toBe(true);
    expect(lintJobs('nope', 'ns', 'demo')).toEqual([]);
  });

  it('maps the Job\'s fields back to the module\'s', () => {
    const env = [{ name: 'K' }, { name: 's3path' }];
    expect(moduleField('spec.template.spec.containers[0].env[0].name', env, { K: 'v' })).toBe('configuration.K');
    expect(moduleField('spec.template.spec.containers[0].env[1].value', env, { K: 'v' })).toBe('template.spec.containers[0].env[1].value');
    expect(moduleField('spec.template.spec.containers[0].image', env)).toBe('template.spec.containers[0].image');
    expect(moduleField('spec.backoffLimit', env)).toBe('backoffLimit');
    expect(moduleField('metadata.name', env)).toBe('modulename (the Job\'s metadata.name)');
    expect(moduleField('', env)).toBe('(Job)');
  });

  it('names every cause of a refused dry run, or its message when it has none', () => {
    const status = { message: 'Job.batch "x" is invalid', details: { causes: [{ field: 'spec.template.spec.containers[0].image', message: 'Required value' }] } };
    expect(dryRunErrors('m', status, [])).toEqual([{ module: 'm', field: 'template.spec.containers[0].image', message: 'Required value' }]);
    expect(dryRunErrors('m', { message: 'forbidden' }, [])).toEqual([{ module: 'm', field: '(Job)', message: 'forbidden' }]);
  });
});
