import { describe, expect, it } from 'vitest';
import { buildJob, type JobSettings, type RunRef } from './job-manifest.ts';
import { BINDING_EXCLUDE_LABEL, BINDING_INCLUDE_LABEL, moduleSinkOf } from './module-sink.ts';
import { module } from './testing/fixtures.ts';

const SINK = 'http://broker-ingress.knative-eventing.svc.cluster.local/ns1/default';
const plain = { sink: SINK, caCerts: undefined, oidcToken: false, trustBundles: false };

describe('which module Jobs the function gives K_SINK itself', () => {
  it.each([
    ['a plain K_SINK', plain, { url: SINK }],
    ['K_SINK and K_CA_CERTS', { ...plain, caCerts: 'PEM' }, { url: SINK, caCerts: 'PEM' }],
    ['no K_SINK', { ...plain, sink: undefined }, undefined],
    ['an OIDC token mounted', { ...plain, oidcToken: true }, undefined],
    ['trust bundles mounted', { ...plain, trustBundles: true }, undefined],
  ])('%s', (_what, own, expected) => {
    expect(moduleSinkOf(own)).toEqual(expected);
  });
});

describe('a module Job the function gives K_SINK', () => {
  const template = {
    spec: {
      initContainers: [{ name: 'fetch', image: 'example/fetch:1', env: [{ name: 'K_SINK', value: 'stale' }] }],
      containers: [
        { name: 'main', image: 'example/main:1' },
        { name: 'side', image: 'example/side:1', env: [{ name: 'KEEP', value: 'k' }] },
      ],
      restartPolicy: 'Never',
    },
  };
  const ref: RunRef = {
    name: 'run-1',
    uid: 'u-1',
    iuid: 'abcdef',
    turlinfo: 's3://in',
    modules: [{ ...module('first'), template }],
  };
  const settings: JobSettings = { namespace: 'ns1', scenarioName: 'sc', outMinioAddress: 'http://out/' };

  it('is labelled for the webhook to skip, and every container gets K_SINK and K_CA_CERTS once', () => {
    const job = buildJob({ ...settings, moduleSink: { url: SINK, caCerts: 'PEM' } }, ref, 0);
    expect(job.metadata?.labels?.[BINDING_EXCLUDE_LABEL]).toBe('true');
    expect(job.metadata?.labels?.[BINDING_INCLUDE_LABEL]).toBeUndefined();
    const spec = job.spec!.template.spec!;
    for (const c of [...spec.initContainers!, ...spec.containers]) {
      const sinkVars = (c.env ?? []).filter((e) => e.name.startsWith('K_'));
      expect(sinkVars, c.name).toEqual([
        { name: 'K_SINK', value: SINK },
        { name: 'K_CA_CERTS', value: 'PEM' },
      ]);
    }
    expect(spec.containers[1]!.env).toContainEqual({ name: 'KEEP', value: 'k' });
    // the pods carry no exclude label: the webhook admits Jobs, not pods
    expect(job.spec!.template.metadata?.labels?.[BINDING_EXCLUDE_LABEL]).toBeUndefined();
  });

  it('is left to the SinkBinding when the function gives none: labelled for its webhook in either mode, no K_SINK', () => {
    const job = buildJob(settings, ref, 0);
    expect(job.metadata?.labels?.[BINDING_EXCLUDE_LABEL]).toBeUndefined();
    expect(job.metadata?.labels?.[BINDING_INCLUDE_LABEL]).toBe('true');
    const spec = job.spec!.template.spec!;
    expect(spec.containers[0]!.env?.some((e) => e.name === 'K_SINK')).toBe(false);
    expect(spec.initContainers![0]!.env).toEqual([{ name: 'K_SINK', value: 'stale' }]);
  });
});
