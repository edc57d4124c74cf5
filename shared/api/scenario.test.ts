import { describe, expect, it } from 'vitest';
import { parseScenario } from './scenario.ts';
import { goModule, goScenario } from './testing/fixtures.ts';

type Mutation = (scenario: { cascademodules: Record<string, unknown>[] }) => unknown;

const at =
  (i: number, extra: Record<string, unknown>): Mutation =>
  (s) => {
    s.cascademodules[i] = { ...s.cascademodules[i], ...extra };
    return s;
  };

describe('parseScenario', () => {
  it.each<[string, Mutation]>([
    ['the Go controller scenario file', (s) => s],
    ['a module without configuration', at(0, { configuration: undefined })],
    [
      'a single module with every Job knob',
      () => ({
        cascademodules: [goModule('one', { activeDeadlineSeconds: 60, backoffLimit: 2, ttlSecondsAfterFinished: 0 })],
      }),
    ],
    [
      'unknown PodTemplateSpec fields',
      at(1, {
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'x', args: ['1'] }], volumes: [] } },
      }),
    ],
  ])('accepts %s', (_name, mutate) => {
    const result = parseScenario(mutate(goScenario()));
    expect(result.ok).toBe(true);
  });

  it('keeps the PodTemplateSpec fields it does not describe', () => {
    const result = parseScenario(goScenario());
    if (!result.ok) throw new Error(result.reason);
    const template = result.value.cascademodules[0]?.template;
    expect(template?.spec['restartPolicy']).toBe('OnFailure');
    expect(template?.spec.containers[0]?.['image']).toBe('registry.example/grayscale:1.0.0');
  });

  it.each<[string, Mutation, string]>([
    ['not an object', () => 'nope', '(root)'],
    ['no cascademodules', () => ({}), 'cascademodules: required field is missing'],
    ['empty cascademodules', () => ({ cascademodules: [] }), 'cascademodules: Invalid length'],
    ['modules not an array', () => ({ cascademodules: { a: 1 } }), 'cascademodules: Invalid type'],
    ['empty modulename', at(1, { modulename: '' }), 'cascademodules[1].modulename'],
    ['missing template', at(0, { template: undefined }), 'cascademodules[0].template: required'],
    ['template without spec', at(0, { template: { metadata: {} } }), 'cascademodules[0].template.spec'],
    ['no containers', at(2, { template: { spec: { containers: [] } } }), 'cascademodules[2].template.spec.containers'],
    [
      'container without name',
      at(0, { template: { spec: { containers: [{ image: 'x' }] } } }),
      'cascademodules[0].template.spec.containers[0].name',
    ],
    [
      'non-string configuration value',
      at(0, { configuration: { thresh: 128 } }),
      'cascademodules[0].configuration.thresh',
    ],
    ['fractional backoffLimit', at(0, { backoffLimit: 1.5 }), 'cascademodules[0].backoffLimit: Invalid integer'],
    [
      'negative ttlSecondsAfterFinished',
      at(0, { ttlSecondsAfterFinished: -1 }),
      'cascademodules[0].ttlSecondsAfterFinished',
    ],
    ['zero activeDeadlineSeconds', at(0, { activeDeadlineSeconds: 0 }), 'cascademodules[0].activeDeadlineSeconds'],
  ])('rejects %s, naming the path', (_name, mutate, reason) => {
    const result = parseScenario(mutate(goScenario()));
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
    if (!result.ok) expect(result.reason).not.toContain('\n');
  });
});
