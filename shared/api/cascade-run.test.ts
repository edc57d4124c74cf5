import { describe, expect, it } from 'vitest';
import { CONDITION_REASONS, MODULE_PHASES, parseCascadeRun, RUN_PHASES } from './cascade-run.ts';
import { cascadeRun, goCascadeRun, without } from './testing/fixtures.ts';

type Run = Record<string, Record<string, unknown>>;
type Mutation = (run: Run) => unknown;

const spec =
  (extra: Record<string, unknown>): Mutation =>
  (r) => ({ ...r, spec: { ...r.spec, ...extra } });
const status =
  (extra: Record<string, unknown>): Mutation =>
  (r) => ({ ...r, status: { ...r.status, ...extra } });
const condition =
  (extra: Record<string, unknown>): Mutation =>
  (r) => {
    const [first] = r.status?.conditions as Record<string, unknown>[];
    return status({ conditions: [{ ...first, ...extra }] })(r);
  };

describe('parseCascadeRun', () => {
  it.each<[string, () => Record<string, unknown>, Mutation]>([
    ['as the Go controller wrote it', goCascadeRun, (r) => r],
    ['from the Go controller without status', goCascadeRun, ({ status: _s, ...r }) => r],
    ['from the Go controller with an empty result list and info', goCascadeRun, status({ result: [], info: '' })],
    ['without ob and src', goCascadeRun, (r) => ({ ...r, spec: without(r.spec, 'ob', 'src') })],
    ['as Cascade writes it', cascadeRun, (r) => r],
    [
      'finished, with completion times and reasons',
      cascadeRun,
      status({
        phase: 'Failed',
        completionTime: '2024-05-01T10:01:00+02:00',
        conditions: [
          {
            type: 'Succeeded',
            status: 'False',
            reason: 'ModuleFailed',
            message: 'x',
            lastTransitionTime: '2024-05-01T10:01:00Z',
          },
        ],
        notified: true,
      }),
    ],
  ])('accepts a run %s', (_name, fixture, mutate) => {
    const result = parseCascadeRun(mutate(fixture() as Run));
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.spec.pid).toBe('abcdef0123');
  });

  it('keeps metadata fields it does not describe', () => {
    const result = parseCascadeRun(goCascadeRun());
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.metadata['managedFields']).toEqual([{ manager: 'cascadescenariocontroller' }]);
  });

  it.each<[string, Mutation, string]>([
    ['a wrong apiVersion', (r) => ({ ...r, apiVersion: 'v1' }), 'apiVersion'],
    ['a wrong kind', (r) => ({ ...r, kind: 'Job' }), 'kind'],
    ['no metadata name', (r) => ({ ...r, metadata: { namespace: 'n' } }), 'metadata.name: required'],
    ['no spec', ({ spec: _s, ...r }) => r, 'spec: required'],
    ['no pid', (r) => ({ ...r, spec: without(r.spec, 'pid') }), 'spec.pid: required'],
    ['an empty pid', spec({ pid: '' }), 'spec.pid: Invalid length'],
    ['modules not an array', spec({ modules: 'grayscale' }), 'spec.modules: Invalid type'],
    ['a module name not a string', spec({ modules: ['a', 2] }), 'spec.modules[1]'],
    [
      'an invalid scenario snapshot',
      spec({ cascademodules: [{ modulename: 'a' }] }),
      'spec.cascademodules[0].template',
    ],
    ['an unknown phase', status({ phase: 'Done' }), 'status.phase'],
    ['result not a list', status({ result: 'grayscale: ok' }), 'status.result'],
    ['a negative step', status({ currentStep: -1 }), 'status.currentStep'],
    ['a bad timestamp', status({ startTime: 'yesterday' }), 'status.startTime: Invalid timestamp'],
    [
      'a bad module phase',
      status({ modules: [{ step: 0, name: 'a', jobName: 'j', phase: 'Done' }] }),
      'status.modules[0].phase',
    ],
    [
      'a module record without jobName',
      status({ modules: [{ step: 0, name: 'a', phase: 'Running' }] }),
      'status.modules[0].jobName: required',
    ],
    ['an unknown condition reason', condition({ reason: 'Oops' }), 'status.conditions[0].reason'],
    ['a bad condition status', condition({ status: 'true' }), 'status.conditions[0].status'],
    [
      'a condition without lastTransitionTime',
      condition({ lastTransitionTime: undefined }),
      'status.conditions[0].lastTransitionTime: required',
    ],
    ['notified not a boolean', status({ notified: 'yes' }), 'status.notified'],
  ])('rejects a run with %s, naming the path', (_name, mutate, reason) => {
    const result = parseCascadeRun(mutate(cascadeRun() as Run));
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it('exports closed vocabularies', () => {
    expect(RUN_PHASES).toEqual(['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled']);
    expect(MODULE_PHASES).toEqual(RUN_PHASES.filter((p) => p !== 'Queued'));
    expect(CONDITION_REASONS).toEqual(
      expect.arrayContaining([
        'Running',
        'ModuleFailed',
        'ModuleResultFailed',
        'JobMissing',
        'DeadlineExceeded',
        'Stalled',
        'Succeeded',
        'InvalidSpec',
        'Cancelled',
      ]),
    );
  });
});
