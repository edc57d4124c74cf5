// The CRDs in crds/ (generated from shared/api) on a real API server: the Go
// controller's objects are accepted, Cascade's richer status too, bad objects
// are rejected with a message naming the field, and kubectl shows the columns.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import { parseCascadeRun } from '../shared/api/cascade-run.ts';
import * as g from '../shared/api/group.ts';
import { cascadeRun, goCascadeAutoOperator, goCascadeRun, without } from '../shared/api/testing/fixtures.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { adminKubeConfig, adminKubeconfigPath, apiStatus, createTestNamespace } from './support/kube.ts';

type Obj = Record<string, Record<string, unknown>>;

const api = () => adminKubeConfig().makeApiClient(CustomObjectsApi);
let namespace = '';
let counter = 0;

function named(fixture: Record<string, unknown>, prefix: string): Obj {
  const obj = fixture as Obj;
  counter += 1;
  return { ...obj, metadata: { name: `${prefix}-${counter}`, namespace } };
}

const where = (plural: string) => ({ group: g.GROUP, version: g.VERSION, namespace, plural });

async function create(plural: string, body: Obj): Promise<Obj> {
  return (await api().createNamespacedCustomObject({ ...where(plural), body })) as Obj;
}

async function putStatus(plural: string, created: Obj, status: unknown): Promise<Obj> {
  const name = String(created.metadata?.['name']);
  const body = { ...created, status };
  return (await api().replaceNamespacedCustomObjectStatus({ ...where(plural), name, body })) as Obj;
}

/** The API server's message for a rejected call, failing the test if the call succeeded. */
async function rejection(call: Promise<unknown>): Promise<{ code: number | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const message = (JSON.parse(text) as { message?: string }).message ?? text;
    return { code: apiStatus(error), message };
  }
  throw new Error('the API server accepted an invalid object');
}

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args]);
  return stdout;
}

const RICH_STATUS = cascadeRun()['status'];

beforeAll(async () => {
  namespace = await createTestNamespace('crds');
});

describe('CascadeRun CRD', () => {
  it("accepts a CascadeRun with the Go controller's fields, and its status", async () => {
    const go = goCascadeRun() as Obj;
    const created = await create(g.CASCADE_RUN_PLURAL, without(named(go, 'go'), 'status') as Obj);
    expect(created.spec).toEqual(go.spec);
    const updated = await putStatus(g.CASCADE_RUN_PLURAL, created, go.status);
    expect(updated.status).toEqual(go.status);
    expect(parseCascadeRun(updated)).toMatchObject({ ok: true });
  });

  it("accepts Cascade's scenario snapshot and rich status through the status subresource", async () => {
    const run = cascadeRun() as Obj;
    const created = await create(g.CASCADE_RUN_PLURAL, named(run, 'rich'));
    expect(created.spec).toEqual(run.spec); // unknown PodTemplateSpec fields are kept
    expect(created.status).toBeUndefined(); // status is only written through its subresource
    const updated = await putStatus(g.CASCADE_RUN_PLURAL, created, RICH_STATUS);
    expect(updated.status).toEqual(RICH_STATUS);
    const parsed = parseCascadeRun(updated);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.value.status?.modules?.[0]?.jobName).toBe('cascadeautooperator-ip-grayscale-abcde');
  });

  const spec =
    (extra: Record<string, unknown>) =>
    (r: Obj): Obj => ({ ...r, spec: { ...r.spec, ...extra } });
  const template = (t: unknown) => spec({ cascademodules: [{ modulename: 'a', template: t }] });

  it.each<[string, (r: Obj) => Obj, RegExp]>([
    ['modules not an array', spec({ modules: 'grayscale' }), /spec\.modules.*must be of type array/],
    ['a module name not a string', spec({ modules: ['a', 7] }), /spec\.modules\[1\].*must be of type string/],
    ['no pid', (r) => ({ ...r, spec: without(r.spec, 'pid') }), /spec\.pid: Required value/],
    ['an empty pid', spec({ pid: '' }), /spec\.pid.*at least 1 chars/],
    ['no scenarioname', (r) => ({ ...r, spec: without(r.spec, 'scenarioname') }), /spec\.scenarioname: Required value/],
    [
      'a module without template',
      spec({ cascademodules: [{ modulename: 'a' }] }),
      /spec\.cascademodules\[0\]\.template: Required value/,
    ],
    [
      'a template without containers',
      template({ spec: { containers: [] } }),
      /spec\.cascademodules\[0\]\.template\.spec\.containers/,
    ],
    [
      'a container without name',
      template({ spec: { containers: [{ image: 'x' }] } }),
      /containers\[0\]\.name: Required value/,
    ],
    [
      'a negative backoffLimit',
      spec({ cascademodules: [{ ...goCascadeRunModule(), backoffLimit: -1 }] }),
      /backoffLimit/,
    ],
  ])('rejects a spec with %s, naming the field', async (_name, mutate, expected) => {
    const body = mutate(named(goCascadeRun(), 'bad'));
    const { code, message } = await rejection(create(g.CASCADE_RUN_PLURAL, without(body, 'status') as Obj));
    expect(code).toBe(422);
    expect(message).toMatch(expected);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown phase', { phase: 'Done' }, /status\.phase: Unsupported value: "Done"/],
    ['result not a list', { result: 'grayscale: ok' }, /status\.result.*must be of type array/],
    ['a negative currentStep', { currentStep: -1 }, /status\.currentStep/],
    ['a bad timestamp', { startTime: 'yesterday' }, /status\.startTime/],
    [
      'an unknown condition reason',
      {
        conditions: [
          {
            type: 'Succeeded',
            status: 'True',
            reason: 'Oops',
            message: '',
            lastTransitionTime: '2024-05-01T10:00:00Z',
          },
        ],
      },
      /status\.conditions\[0\]\.reason: Unsupported value: "Oops"/,
    ],
    [
      'a module record without jobName',
      { modules: [{ step: 0, name: 'a', phase: 'Running' }] },
      /status\.modules\[0\]\.jobName: Required value/,
    ],
  ])('rejects a status with %s, naming the field', async (_name, status, expected) => {
    const created = await create(g.CASCADE_RUN_PLURAL, without(named(goCascadeRun(), 'badstatus'), 'status') as Obj);
    const { code, message } = await rejection(
      putStatus(g.CASCADE_RUN_PLURAL, created, { ...(RICH_STATUS as object), ...status }),
    );
    expect(code).toBe(422);
    expect(message).toMatch(expected);
  });

  it('keeps the spec immutable (metadata may still change)', async () => {
    const created = await create(g.CASCADE_RUN_PLURAL, without(named(cascadeRun(), 'immutable'), 'status') as Obj);
    const name = String(created.metadata?.['name']);
    const changed = { ...created, spec: { ...created.spec, modules: ['other'] } };
    const { code, message } = await rejection(
      api().replaceNamespacedCustomObject({ ...where(g.CASCADE_RUN_PLURAL), name, body: changed }),
    );
    expect(code).toBe(422);
    expect(message).toContain('spec is immutable');
    const labelled = { ...created, metadata: { ...created.metadata, labels: { team: 'a' } } };
    const relabelled = (await api().replaceNamespacedCustomObject({
      ...where(g.CASCADE_RUN_PLURAL),
      name,
      body: labelled,
    })) as Obj;
    expect(relabelled.metadata?.['labels']).toEqual({ team: 'a' });
    expect(relabelled.metadata?.['generation']).toBe(created.metadata?.['generation']);
    expect(relabelled.spec).toEqual(created.spec);
  });

  it('shows Phase, Module, Step, Succeeded and Age in `kubectl get cascaderuns`', async () => {
    const created = await create(g.CASCADE_RUN_PLURAL, without(named(cascadeRun(), 'table'), 'status') as Obj);
    await putStatus(g.CASCADE_RUN_PLURAL, created, RICH_STATUS);
    const name = String(created.metadata?.['name']);
    const table = await kubectl('get', 'cascaderuns', '-n', namespace, name);
    const [header, row] = table
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(header).toEqual(['NAME', 'PHASE', 'MODULE', 'STEP', 'SUCCEEDED', 'AGE']);
    expect(row?.slice(0, 5)).toEqual([name, 'Running', 'binarization', '1', 'Unknown']);
    const wide = await kubectl('get', 'crun', '-n', namespace, name, '-o', 'wide');
    expect(wide.split('\n')[0]?.trim().split(/\s+/)).toEqual([
      'NAME',
      'PHASE',
      'MODULE',
      'STEP',
      'SUCCEEDED',
      'REASON',
      'PID',
      'AGE',
    ]);
    expect(wide).toContain('abcdef0123');
  });

  it('works with `kubectl wait --for=condition=Succeeded`', async () => {
    const created = await create(g.CASCADE_RUN_PLURAL, without(named(cascadeRun(), 'wait'), 'status') as Obj);
    const condition = {
      type: 'Succeeded',
      status: 'True',
      reason: 'Succeeded',
      message: 'all 3 modules succeeded',
      lastTransitionTime: '2024-05-01T10:02:00Z',
    };
    await putStatus(g.CASCADE_RUN_PLURAL, created, {
      ...(RICH_STATUS as object),
      phase: 'Succeeded',
      conditions: [condition],
    });
    const out = await kubectl(
      'wait',
      '-n',
      namespace,
      '--for=condition=Succeeded',
      '--timeout=10s',
      `crun/${String(created.metadata?.['name'])}`,
    );
    expect(out).toContain('condition met');
  });
});

describe('CascadeAutoOperator CRD', () => {
  it("accepts the Go operator's CascadeAutoOperator and Cascade's slots and queue", async () => {
    const cao = goCascadeAutoOperator() as Obj;
    const created = await create(g.CASCADE_AUTO_OPERATOR_PLURAL, without(named(cao, 'cao'), 'status') as Obj);
    expect(created.spec).toEqual(cao.spec); // the Go controller's replicas and template: declared, kept (and ignored)
    const status = { ...cao.status, holders: ['run-a', 'run-b/r1'], queue: ['run-c'] };
    const updated = await putStatus(g.CASCADE_AUTO_OPERATOR_PLURAL, created, status);
    expect(updated.status).toEqual(status);
    expect(parseCascadeAutoOperator(updated)).toMatchObject({ ok: true });
    const table = await kubectl('get', 'cao', '-n', namespace, String(created.metadata?.['name']));
    const [header, row] = table
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(header).toEqual(['NAME', 'ACTIVE', 'QUEUED', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'AGE']);
    expect(row?.slice(1, 4)).toEqual(['1', '3', '1']); // QUEUED is blank: kubectl prints nothing for an integer not set
  });

  it('shows the queue and the limit: a printer column each', async () => {
    const cao = goCascadeAutoOperator() as Obj;
    const body = without(named({ ...cao, spec: { ...cao.spec, maxConcurrentRuns: 5 } }, 'limited'), 'status') as Obj;
    const created = await create(g.CASCADE_AUTO_OPERATOR_PLURAL, body);
    await putStatus(g.CASCADE_AUTO_OPERATOR_PLURAL, created, {
      active: 5,
      queued: 2,
      holders: ['a', 'b', 'c', 'd', 'e'],
      queue: ['f', 'g'],
    });
    const table = await kubectl('get', 'cao', '-n', namespace, '-o', 'wide', String(created.metadata?.['name']));
    const [header = '', row = ''] = table.split('\n');
    // Columns by the header's offsets: blank cells (counters not set) collapse under a split on spaces.
    const cell = (name: string) => row.slice(header.indexOf(name)).trim().split(/\s+/)[0];
    expect(header.trim().split(/\s+/)).toEqual([
      'NAME',
      'ACTIVE',
      'QUEUED',
      'SUCCEEDED',
      'FAILED',
      'CANCELLED',
      'RESULT',
      'LIMIT',
      'AGE',
    ]);
    expect([cell('ACTIVE'), cell('QUEUED'), cell('LIMIT')]).toEqual(['5', '2', '5']);
  });

  it("refuses an unknown spec field under strict field validation (kubectl's default), and prunes it with a warning otherwise", async () => {
    const cao = goCascadeAutoOperator() as Obj;
    const body = (prefix: string) =>
      without(named({ ...cao, spec: { ...cao.spec, maxConcurentRuns: 5 } }, prefix), 'status') as Obj;
    const strict = api().createNamespacedCustomObject({
      ...where(g.CASCADE_AUTO_OPERATOR_PLURAL),
      body: body('strict'),
      fieldValidation: 'Strict',
    });
    const { code, message } = await rejection(strict);
    expect(code).toBe(400);
    expect(message).toMatch(/unknown field "spec\.maxConcurentRuns"/);
    const pruned = (await api().createNamespacedCustomObject({
      ...where(g.CASCADE_AUTO_OPERATOR_PLURAL),
      body: body('warn'),
    })) as Obj;
    expect(pruned.spec).toEqual(cao.spec);
  });

  it.each<[string, (c: Obj) => Obj, RegExp]>([
    [
      'no scenarioconfig',
      (c) => ({ ...c, spec: without(c.spec, 'scenarioconfig') }),
      /spec\.scenarioconfig: Required value/,
    ],
    [
      'an empty scenario',
      (c) => ({ ...c, spec: { ...c.spec, scenarioconfig: { cascademodules: [] } } }),
      /spec\.scenarioconfig\.cascademodules/,
    ],
    ['a limit of 0', (c) => ({ ...c, spec: { ...c.spec, maxConcurrentRuns: 0 } }), /spec\.maxConcurrentRuns/],
  ])('rejects a CascadeAutoOperator with %s', async (_name, mutate, expected) => {
    const body = without(mutate(named(goCascadeAutoOperator(), 'badcao')), 'status') as Obj;
    const { code, message } = await rejection(create(g.CASCADE_AUTO_OPERATOR_PLURAL, body));
    expect(code).toBe(422);
    expect(message).toMatch(expected);
  });

  it('lists both kinds under the `cascade` category', async () => {
    const out = await kubectl('get', 'cascade', '-n', namespace, '-o', 'name');
    expect(out).toMatch(/^cascaderun\.cascade\.cascade\.net\//m);
    expect(out).toMatch(/^cascadeautooperator\.cascade\.cascade\.net\//m);
  });
});

function goCascadeRunModule(): Record<string, unknown> {
  const spec = cascadeRun()['spec'] as { cascademodules: Record<string, unknown>[] };
  return spec.cascademodules[0] ?? {};
}
