// func.yaml and the Procfile describe the same function as knative/service.yaml:
// same environment, ServiceAccount, probes and scaling, and an entry point
// that exists. (func reads func.yaml; the buildpack reads the Procfile.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Env { name: string; value?: string; valueFrom?: unknown }
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
const func = parse(read('func.yaml')) as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
const service = parse(read('knative/service.yaml')) as any;
const revision = service.spec.template;
const container = revision.spec.containers[0];

describe('func.yaml', () => {
  it('names the function cascade, TypeScript, in cascade-operator, built by a buildpack', () => {
    expect(func).toMatchObject({ specVersion: '0.36.0', name: 'cascade', runtime: 'typescript', namespace: 'cascade-operator' });
    expect(func.build.builder).toBe('pack');
    expect(func.created).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('sets the same environment as the Knative Service, without POD_NAMESPACE (read from the ServiceAccount)', () => {
    const fromService = (container.env as Env[]).map((e) => [e.name, e.value]);
    expect((func.run.envs as Env[]).map((e) => [e.name, e.value])).toEqual(fromService);
    expect((container.env as Env[]).every((e) => e.valueFrom === undefined)).toBe(true);
    expect((func.run.envs as Env[]).map((e) => e.name)).not.toContain('POD_NAMESPACE');
  });

  it('deploys like the Knative Service: ServiceAccount, probes, scenario volume, scale and concurrency', () => {
    expect(func.deploy.serviceAccountName).toBe(revision.spec.serviceAccountName);
    expect(func.deploy.healthEndpoints).toEqual({
      liveness: container.livenessProbe.httpGet.path,
      readiness: container.readinessProbe.httpGet.path,
    });
    expect(func.run.volumes).toEqual([{ configMap: revision.spec.volumes[0].configMap.name, path: container.volumeMounts[0].mountPath }]);
    expect(func.deploy.options.scale.min).toBe(Number(revision.metadata.annotations['autoscaling.knative.dev/min-scale']));
    expect(func.deploy.options.resources.limits.concurrency).toBe(revision.spec.containerConcurrency);
  });

  it('is cluster-local, as the Knative Service: func puts deploy.labels on the Service', () => {
    expect(service.metadata.labels['networking.knative.dev/visibility']).toBe('cluster-local');
    expect(func.deploy.labels).toContainEqual({ key: 'networking.knative.dev/visibility', value: 'cluster-local' });
  });
});

describe('Procfile', () => {
  const processes = Object.fromEntries(
    read('Procfile').trim().split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );

  it('starts the function\'s bundle (faas-js-runtime serving functions/cascade/index.ts), which `npm run build` writes from functions/cascade/serve.ts', () => {
    expect(processes.web).toBe('node --max-semi-space-size=4 build/functions/cascade/server.cjs');
    expect(existsSync(join(root, 'functions/cascade/serve.ts'))).toBe(true);
    expect(existsSync(join(root, 'scripts/bundle.ts'))).toBe(true);
  });

  it('has the janitor process the deploy/func CronJob runs, compiled too', () => {
    expect(processes.janitor).toBe('node build/functions/janitor/main.js');
    expect(existsSync(join(root, 'functions/janitor/main.ts'))).toBe(true);
    expect(read('deploy/func/kustomization.yaml')).toContain('/cnb/process/janitor');
  });

  it('is built as func\'s TypeScript template is: the buildpack runs the `build` script', () => {
    expect(func.build.buildEnvs).toEqual([{ name: 'BP_NODE_RUN_SCRIPTS', value: 'build' }]);
  });
});
