// func.yaml and the Procfile describe the same function as knative/service.yaml:
// the Service `func deploy` makes (test/support/func-service.ts) is knative/service.yaml
// but for FUNC_CANNOT_EXPRESS, and the pod's shutdown fits its grace period on
// every deploy path. The Procfile's entry point exists. (func reads func.yaml;
// the buildpack reads the Procfile.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { funcService, FUNC_HTTP_PORT, FUNC_SECURITY_CONTEXT } from '../test/support/func-service.ts';
import { DEFAULT_REVISION_TIMEOUT_SECONDS } from '../local/knative/queue-proxy/env.ts';
import { parseConfig } from '../shared/config.ts';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Env {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
const func = parse(read('func.yaml')) as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
const service = parse(read('knative/service.yaml')) as any;
const revision = service.spec.template;
const container = revision.spec.containers[0];

/** What knative/service.yaml sets and func.yaml has no field for (knative/func's Knative deployer). */
const FUNC_CANNOT_EXPRESS = {
  timeoutSeconds: 60,
  securityContext: { runAsUser: 1000, runAsGroup: 1000, readOnlyRootFilesystem: true },
};
/** queue-proxy's drain on SIGTERM: this long without a request (knative/serving pkg/queue/sharedmain drainSleepDuration). */
const QUEUE_PROXY_QUIET_SECONDS = 30;

interface Probe {
  httpGet: { path: string; port?: number };
  [field: string]: unknown;
}
interface Volume {
  name: string;
  [source: string]: unknown;
}

/**
 * A Knative Service as the API server and Knative would run it, without what
 * only names things: volumes by mount path, probe ports defaulted to the
 * function's port, annotation numbers as numbers (func writes 70.000000).
 * readOnly on a ConfigMap mount is left out: the kubelet mounts ConfigMaps read-only anyway.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a Knative Service read from YAML or made by funcService
function comparable(svc: any) {
  const t = svc.spec.template;
  const c = t.spec.containers[0];
  const volumes = new Map((t.spec.volumes as Volume[]).map(({ name, ...source }) => [name, source]));
  const probe = (p: Probe) => ({ ...p, httpGet: { ...p.httpGet, port: p.httpGet.port ?? FUNC_HTTP_PORT } });
  const number = (v: string) => (/^\d+(\.\d+)?$/.test(v) ? Number(v) : v);
  return {
    labels: svc.metadata.labels,
    annotations: Object.fromEntries(
      Object.entries(t.metadata.annotations as Record<string, string>).map(([k, v]) => [k, number(v)]),
    ),
    containerConcurrency: t.spec.containerConcurrency,
    timeoutSeconds: t.spec.timeoutSeconds,
    serviceAccountName: t.spec.serviceAccountName,
    image: c.image,
    env: c.env,
    livenessProbe: probe(c.livenessProbe),
    readinessProbe: probe(c.readinessProbe),
    resources: c.resources,
    securityContext: c.securityContext,
    mounts: Object.fromEntries(
      (c.volumeMounts as { name: string; mountPath: string }[]).map((m) => [m.mountPath, volumes.get(m.name)]),
    ),
  };
}

describe('func.yaml', () => {
  it('names the function cascade, TypeScript, in cascade-operator, built by a buildpack', () => {
    expect(func).toMatchObject({
      specVersion: '0.36.0',
      name: 'cascade',
      runtime: 'typescript',
      namespace: 'cascade-operator',
    });
    expect(func.build.builder).toBe('pack');
    expect(func.created).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('sets the same environment as the Knative Service, without POD_NAMESPACE (read from the ServiceAccount)', () => {
    const fromService = (container.env as Env[]).map((e) => [e.name, e.value]);
    expect((func.run.envs as Env[]).map((e) => [e.name, e.value])).toEqual(fromService);
    expect((container.env as Env[]).every((e) => e.valueFrom === undefined)).toBe(true);
    expect((func.run.envs as Env[]).map((e) => e.name)).not.toContain('POD_NAMESPACE');
  });

  it('deploys like the Knative Service: ServiceAccount, probes, scenario volume, /tmp emptyDir, scale and concurrency', () => {
    expect(func.deploy.serviceAccountName).toBe(revision.spec.serviceAccountName);
    expect(func.deploy.healthEndpoints).toEqual({
      liveness: container.livenessProbe.httpGet.path,
      readiness: container.readinessProbe.httpGet.path,
    });
    expect(func.deploy.options.scale.min).toBe(
      Number(revision.metadata.annotations['autoscaling.knative.dev/min-scale']),
    );
    expect(func.deploy.options.resources.limits.concurrency).toBe(revision.spec.containerConcurrency);
  });

  it('gives the Service knative/service.yaml is, but for what func cannot express', () => {
    const fromFunc = comparable(funcService(func));
    const fromKustomize = comparable(service);
    // What func.yaml has no field for: the one list of differences between the two deploy paths.
    expect(fromKustomize.timeoutSeconds).toBe(FUNC_CANNOT_EXPRESS.timeoutSeconds);
    expect(fromFunc.timeoutSeconds, "func: the cluster's revision-timeout-seconds").toBeUndefined();
    expect(fromKustomize.securityContext).toEqual({ ...FUNC_SECURITY_CONTEXT, ...FUNC_CANNOT_EXPRESS.securityContext });
    expect(fromFunc.securityContext).toEqual(FUNC_SECURITY_CONTEXT);
    const without = ({ timeoutSeconds: _t, securityContext: _s, ...rest }: ReturnType<typeof comparable>) => rest;
    expect(without(fromFunc)).toEqual(without(fromKustomize));
  });

  it("fits queue-proxy's drain and the function's grace inside terminationGracePeriodSeconds (Knative: timeoutSeconds), on every deploy path", () => {
    const parsed = parseConfig({});
    const grace = parsed.ok ? parsed.value.shutdownGraceSeconds : NaN;
    const budget = QUEUE_PROXY_QUIET_SECONDS + grace;
    const httpService = parse(read('deploy/http/service.yaml')) as typeof service;
    const paths = {
      'kubectl apply -k knative/': service.spec.template.spec.timeoutSeconds,
      'deploy/http': httpService.spec.template.spec.timeoutSeconds,
      'func deploy':
        (funcService(func).spec.template.spec as { timeoutSeconds?: number }).timeoutSeconds ??
        DEFAULT_REVISION_TIMEOUT_SECONDS,
    };
    expect(budget).toBe(55);
    for (const [path, seconds] of Object.entries(paths)) expect(seconds, path).toBeGreaterThanOrEqual(budget);
    // no manifest changes the grace the budget counts
    const envNames = [service, httpService]
      .flatMap((s) => (s.spec.template.spec.containers[0].env as Env[]).map((e) => e.name))
      .concat((func.run.envs as Env[]).map((e) => e.name));
    expect(envNames).not.toContain('CASCADE_SHUTDOWN_GRACE_SECONDS');
  });

  it('is cluster-local, as the Knative Service: func puts deploy.labels on the Service', () => {
    expect(service.metadata.labels['networking.knative.dev/visibility']).toBe('cluster-local');
    expect(func.deploy.labels).toContainEqual({ key: 'networking.knative.dev/visibility', value: 'cluster-local' });
  });
});

describe('Procfile', () => {
  const processes = Object.fromEntries(
    read('Procfile')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );

  it("starts the function's bundle (faas-js-runtime serving functions/cascade/index.ts), which `npm run build` writes from functions/cascade/serve.ts", () => {
    expect(processes.web).toBe('node --max-semi-space-size=4 build/functions/cascade/server.cjs');
    expect(existsSync(join(root, 'functions/cascade/serve.ts'))).toBe(true);
    expect(existsSync(join(root, 'scripts/bundle.ts'))).toBe(true);
  });

  it('has the janitor process the deploy/func CronJob runs, compiled too', () => {
    expect(processes.janitor).toBe('node build/functions/janitor/main.js');
    expect(existsSync(join(root, 'functions/janitor/main.ts'))).toBe(true);
    expect(read('deploy/func/kustomization.yaml')).toContain('/cnb/process/janitor');
  });

  it("is built as func's TypeScript template is: the buildpack runs the `build` script, on Node.js 24", () => {
    expect(func.build.buildEnvs).toEqual([
      { name: 'BP_NODE_RUN_SCRIPTS', value: 'build' },
      { name: 'BP_NODE_VERSION', value: '24' },
    ]);
    // the same major as the npm package `node` the tests and the image run on
    const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies.node!.split('.')[0]).toBe('24');
  });
});
