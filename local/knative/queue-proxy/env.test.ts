import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parse } from 'js-yaml';
import { queueProxyEnv, queueReadinessProbe, type KnativeService } from './env.ts';

const place = {
  namespace: 'ns',
  userPort: 31000,
  servingPort: 31001,
  tlsPort: 31002,
  metricsHost: '127.0.0.1',
  metricsPort: 31003,
};
const service = (spec: NonNullable<NonNullable<KnativeService['spec']>['template']>['spec']): KnativeService => ({
  metadata: { name: 'fn' },
  spec: { template: { spec } },
});

describe('queue-proxy environment', () => {
  it('from knative/service.yaml: its containerConcurrency, timeoutSeconds and readiness probe on the function port', () => {
    const yaml = parse(
      readFileSync(join(import.meta.dirname, '../../../knative/service.yaml'), 'utf8'),
    ) as KnativeService;
    const env = queueProxyEnv(yaml, place);
    const spec = yaml.spec!.template!.spec!;
    expect(env).toMatchObject({
      SERVING_NAMESPACE: 'ns',
      SERVING_SERVICE: 'cascade',
      SERVING_CONFIGURATION: 'cascade',
      SERVING_REVISION: 'cascade-00001',
      USER_PORT: '31000',
      QUEUE_SERVING_PORT: '31001',
      QUEUE_SERVING_TLS_PORT: '31002',
      CONTAINER_CONCURRENCY: String(spec.containerConcurrency),
      REVISION_TIMEOUT_SECONDS: String(spec.timeoutSeconds),
    });
    const probe = spec.containers![0]!.readinessProbe!;
    expect(JSON.parse(env.SERVING_READINESS_PROBE!)).toEqual({
      ...probe,
      httpGet: { ...probe.httpGet, host: '127.0.0.1', port: 31000, scheme: 'HTTP' },
      successThreshold: 1,
    });
    expect(probe.periodSeconds, 'no period: queue-proxy probes aggressively, as on the func path').toBeUndefined();
    expect(JSON.parse(env.OBSERVABILITY_CONFIG!)).toEqual({
      requestMetrics: { protocol: 'prometheus', endpoint: '127.0.0.1:31003' },
    });
  });

  it('Knative defaults: no containerConcurrency is 0 (unlimited), no timeout is 300 s, no probe is a TCP probe of the port', () => {
    const env = queueProxyEnv(service({ containers: [{}] }), place);
    expect([env.CONTAINER_CONCURRENCY, env.REVISION_TIMEOUT_SECONDS]).toEqual(['0', '300']);
    expect(JSON.parse(env.SERVING_READINESS_PROBE!)).toEqual({
      tcpSocket: { host: '127.0.0.1', port: 31000 },
      successThreshold: 1,
    });
  });

  it("a containerConcurrency of the caller replaces the Service's", () => {
    expect(
      queueProxyEnv(service({ containerConcurrency: 100, containers: [{}] }), { ...place, containerConcurrency: 1 })
        .CONTAINER_CONCURRENCY,
    ).toBe('1');
  });

  it('a probe without a period is probed aggressively (no timeout added); an exec probe becomes a TCP probe; a declared port is kept', () => {
    expect(queueReadinessProbe({ httpGet: { path: '/ready' } }, 8080)).toEqual({
      httpGet: { path: '/ready', host: '127.0.0.1', port: 8080, scheme: 'HTTP' },
      successThreshold: 1,
    });
    expect(queueReadinessProbe({ exec: { command: ['true'] }, periodSeconds: 2 }, 8080)).toEqual({
      tcpSocket: { host: '127.0.0.1', port: 8080 },
      periodSeconds: 2,
      successThreshold: 1,
      failureThreshold: 3,
      timeoutSeconds: 1,
    });
    expect(queueReadinessProbe({ httpGet: { path: '/ready', port: 9000 } }, 8080).httpGet?.port).toBe(9000);
  });

  it('refuses a Service with more than one container', () => {
    expect(() => queueProxyEnv(service({ containers: [{}, {}] }), place)).toThrow(/2 containers/);
  });
});
