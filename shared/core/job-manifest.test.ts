import { describe, expect, it } from 'vitest';
import { buildJob, MODULE_SERVICE_ACCOUNT, moduleEnv, type JobSettings, type RunRef } from './job-manifest.ts';
import { module } from './testing/fixtures.ts';

const settings: JobSettings = {
  namespace: 'ns1',
  scenarioName: 'cascadeautooperator-ip',
  outMinioAddress: 'http://minio:9000/output/',
};
const iuid = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';
const ref: RunRef = {
  name: 'cascadeautooperator-ip-33e65',
  uid: 'u-1',
  iuid,
  turlinfo: 's3://bucket/in.tgz',
  modules: [
    module('grayscale', { foo: 'bar', spamm: 'eggs' }),
    module('binarization', { thresh: '128', s3path: 'ignored', SCENARIONAME: 'ignored', NAMESPACE: 'ignored' }),
    module('diff'),
  ],
};

/** The environment as name → value; a name set twice fails the test instead of hiding behind the last one. */
function plain(step: number): Record<string, string | undefined> {
  const env = moduleEnv(settings, ref, step);
  const names = env.map((e) => e.name);
  expect(
    names.filter((n, i) => names.indexOf(n) !== i),
    `names set twice at step ${step}`,
  ).toEqual([]);
  return Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
}

describe('the pod environment of each step, as the Go controller set it', () => {
  it.each([
    [0, { foo: 'bar', spamm: 'eggs', s3path: 's3://bucket/in.tgz', SCENARIONAME: 'cascadeautooperator-ip' }],
    [
      1,
      {
        thresh: '128',
        s3path: `http://minio:9000/output/cascadeautooperator-ip/${iuid}/${iuid}-stage-1.zip`,
        SCENARIONAME: 'cascadeautooperator-ip',
      },
    ],
    [
      2,
      {
        s3path: `http://minio:9000/output/cascadeautooperator-ip/${iuid}/${iuid}-stage-2.zip`,
        finalstage: 'true',
        SCENARIONAME: 'cascadeautooperator-ip',
      },
    ],
  ])('step %i', (step, expected) => {
    expect(plain(step)).toEqual(expected);
    expect(moduleEnv(settings, ref, step)).toContainEqual({
      name: 'NAMESPACE',
      valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
    });
  });

  it('drops a configuration key that repeats a computed name, keeping the computed value once', () => {
    expect(moduleEnv(settings, ref, 1)).toEqual([
      { name: 'thresh', value: '128' },
      { name: 's3path', value: `http://minio:9000/output/cascadeautooperator-ip/${iuid}/${iuid}-stage-1.zip` },
      { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'SCENARIONAME', value: 'cascadeautooperator-ip' },
    ]);
  });
});

describe('buildJob', () => {
  const job = buildJob(settings, ref, 1);

  it('names and labels the Job as the Go controller did, tied to its run and step', () => {
    expect(job.metadata?.name).toBe('cascadeautooperator-ip-binarization-33e65');
    expect(job.metadata?.labels).toEqual({
      app: 'Cascade',
      modulename: 'binarization-33e65',
      'cascade.cascade.net/run': ref.name,
      'cascade.cascade.net/step': '1',
      'cascade.cascade.net/module': 'binarization',
      'cascade.cascade.net/attempt': '1',
      // left to the SinkBinding cascade-modules: its webhook admits the Job in either mode (module-sink.ts)
      'bindings.knative.dev/include': 'true',
    });
    expect(job.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CascadeRun', name: ref.name, uid: 'u-1', controller: true }),
    ]);
  });

  it('names a later attempt <Job name>-a<n> and labels it with its attempt', () => {
    const retried = buildJob(settings, ref, 1, 3);
    expect(retried.metadata?.name).toBe('cascadeautooperator-ip-binarization-33e65-a3');
    expect(retried.metadata?.labels).toMatchObject({
      'cascade.cascade.net/step': '1',
      'cascade.cascade.net/attempt': '3',
    });
    const long = buildJob(settings, { ...ref, modules: [module('m'.repeat(60))] }, 0, 2);
    expect(long.metadata?.name).toMatch(/^[a-z0-9-]{1,63}$/);
    expect(long.metadata?.name).not.toBe(
      buildJob(settings, { ...ref, modules: [module('m'.repeat(60))] }, 0).metadata?.name,
    );
  });

  it('copies the module Job fields and keeps the template, env on the first container only', () => {
    const m = { ...module('x'), activeDeadlineSeconds: 30, ttlSecondsAfterFinished: 5, backoffLimit: 2 };
    m.template = {
      spec: {
        containers: [
          { name: 'x', image: 'i', env: [{ name: 'KEEP', value: '1' }] },
          { name: 'side', image: 's' },
        ],
      },
    };
    const j = buildJob(settings, { ...ref, modules: [m] }, 0);
    expect(j.spec).toMatchObject({ activeDeadlineSeconds: 30, ttlSecondsAfterFinished: 5, backoffLimit: 2 });
    const [first, side] = j.spec?.template.spec?.containers ?? [];
    expect(first?.env?.map((e) => e.name)).toEqual(['KEEP', 's3path', 'finalstage', 'NAMESPACE', 'SCENARIONAME']);
    expect(side?.env).toBeUndefined();
    expect(m.template.spec.containers[0]?.env).toHaveLength(1);
  });

  it('gives repeated module names distinct Job names', () => {
    const twice: RunRef = { ...ref, modules: [module('a'), module('a')] };
    expect(buildJob(settings, twice, 0).metadata?.name).not.toBe(buildJob(settings, twice, 1).metadata?.name);
  });
});

describe('the computed names are reserved on every step', () => {
  const claims = { keep: 'me', s3path: 'mine', finalstage: 'true', NAMESPACE: 'elsewhere', SCENARIONAME: 'other' };
  const withTemplateEnv = (m: ReturnType<typeof module>) => {
    m.template = {
      spec: {
        containers: [
          {
            name: m.modulename,
            image: 'i',
            env: [
              { name: 'finalstage', value: 'true' },
              { name: 'TPL', value: '1' },
            ],
          },
        ],
      },
    };
    return m;
  };
  const run: RunRef = {
    ...ref,
    modules: [withTemplateEnv(module('first', claims)), withTemplateEnv(module('last', claims))],
  };
  const env = (step: number) => buildJob(settings, run, step).spec?.template.spec?.containers[0]?.env ?? [];

  it('a module before the last cannot claim to be final: its configuration and template lose finalstage', () => {
    expect(env(0)).toEqual([
      { name: 'TPL', value: '1' },
      { name: 'keep', value: 'me' },
      { name: 's3path', value: 's3://bucket/in.tgz' },
      { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'SCENARIONAME', value: 'cascadeautooperator-ip' },
    ]);
  });

  it('the last step gets finalstage once, computed', () => {
    expect(env(1).filter((e) => e.name === 'finalstage')).toEqual([{ name: 'finalstage', value: 'true' }]);
    expect(env(1).map((e) => e.name)).toEqual(['TPL', 'keep', 's3path', 'finalstage', 'NAMESPACE', 'SCENARIONAME']);
  });
});

describe("the module pod's identity", () => {
  /** The pod spec of the Job built from a module whose template's spec has `extra`. */
  const podSpec = (extra: Record<string, unknown>) => {
    const m = module('x');
    m.template = { spec: { ...m.template.spec, ...extra } };
    return buildJob(settings, { ...ref, modules: [m] }, 0).spec?.template.spec;
  };

  it('is cascade-module, with no API token, when the template names no ServiceAccount', () => {
    expect(MODULE_SERVICE_ACCOUNT).toBe('cascade-module');
    expect(podSpec({})).toMatchObject({ serviceAccountName: 'cascade-module', automountServiceAccountToken: false });
  });

  it("keeps the template's automountServiceAccountToken, under cascade-module", () => {
    expect(podSpec({ automountServiceAccountToken: true })).toMatchObject({
      serviceAccountName: 'cascade-module',
      automountServiceAccountToken: true,
    });
  });

  it('keeps a ServiceAccount the template names, and leaves its token to it and to Kubernetes', () => {
    const named = podSpec({ serviceAccountName: 'reader' });
    expect(named?.serviceAccountName).toBe('reader');
    expect(named).not.toHaveProperty('automountServiceAccountToken');
    expect(podSpec({ serviceAccountName: 'reader', automountServiceAccountToken: false })).toMatchObject({
      serviceAccountName: 'reader',
      automountServiceAccountToken: false,
    });
  });

  it('keeps the deprecated serviceAccount field as naming one, and adds no serviceAccountName beside it', () => {
    const named = podSpec({ serviceAccount: 'legacy' });
    expect(named?.serviceAccount).toBe('legacy');
    expect(named).not.toHaveProperty('serviceAccountName');
    expect(named).not.toHaveProperty('automountServiceAccountToken');
  });

  it("leaves the scenario's own template untouched", () => {
    const m = module('x');
    buildJob(settings, { ...ref, modules: [m] }, 0);
    expect(m.template.spec).not.toHaveProperty('serviceAccountName');
    expect(m.template.spec).not.toHaveProperty('automountServiceAccountToken');
  });
});
