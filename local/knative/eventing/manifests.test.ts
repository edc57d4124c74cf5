import { describe, expect, it } from 'vitest';
import {
  BROKER_INGRESS_IP,
  workloadsOf,
  eventingManifests,
  parseManifests,
  placeOnRealNode,
  PROMPT_READINESS,
  promptReadiness,
  resolveKo,
  withFixedIngressAddress,
} from './manifests.ts';

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: eventing-controller
  namespace: knative-eventing
spec:
  template:
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      tolerations:
        - key: other
          operator: Exists
      containers:
        - name: eventing-controller
          image: ko://knative.dev/eventing/cmd/controller
          env:
            - name: APISERVER_RA_IMAGE
              value: ko://knative.dev/eventing/cmd/apiserver_receive_adapter
            - name: DISPATCHER_IMAGE
              value: ko://knative.dev/eventing/cmd/in_memory/channel_dispatcher
            - name: OTHER
              value: gcr.io/x/y
---
apiVersion: v1
kind: Namespace
metadata:
  name: knative-eventing
---
# a comment only
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: brokers.eventing.knative.dev
`;

describe('Knative Eventing manifests', () => {
  it('resolves every ko:// reference to the image built here, as ko resolve does', () => {
    const [doc] = parseManifests([deployment]);
    const resolved = JSON.stringify(resolveKo(doc, 'v0.50.0'));
    expect(resolved).toContain('"image":"cascade.local/knative-eventing/controller:v0.50.0"');
    expect(resolved).toContain('"value":"cascade.local/knative-eventing/apiserver_receive_adapter:v0.50.0"');
    expect(resolved).toContain('"value":"cascade.local/knative-eventing/in_memory-channel_dispatcher:v0.50.0"');
    expect(resolved).toContain('"value":"gcr.io/x/y"');
    expect(resolved).not.toContain('ko://');
  });

  it('places a Deployment on the real node, keeping what its pod template had', () => {
    const [doc] = parseManifests([deployment]);
    const spec = (placeOnRealNode(doc!).spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'cascade.cascade.net/node': 'real' });
    expect(spec.tolerations).toEqual([
      { key: 'other', operator: 'Exists' },
      { key: 'cascade.cascade.net/node', operator: 'Equal', value: 'real', effect: 'NoSchedule' },
    ]);
    expect(spec.containers).toMatchObject([{ name: 'eventing-controller', imagePullPolicy: 'IfNotPresent' }]);
  });

  it('puts the Namespace, then the CRDs first, drops empty documents, and lists the workloads', () => {
    const manifests = eventingManifests(parseManifests([deployment]));
    expect(manifests.map((m) => m.kind)).toEqual(['Namespace', 'CustomResourceDefinition', 'Deployment']);
    expect(workloadsOf(manifests)).toEqual([
      { kind: 'Deployment', namespace: 'knative-eventing', name: 'eventing-controller' },
    ]);
  });

  it('gives the broker-ingress Service its fixed ClusterIP, and no other Service', () => {
    const service = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'knative-eventing' },
      spec: { ports: [{ port: 80 }] },
    });
    expect(withFixedIngressAddress(service('broker-ingress')).spec).toEqual({
      ports: [{ port: 80 }],
      clusterIP: BROKER_INGRESS_IP,
    });
    expect(withFixedIngressAddress(service('broker-filter'))).toEqual(service('broker-filter'));
  });
});

describe('readiness probes asked promptly', () => {
  const probe = { httpGet: { path: '/readiness', port: 'probes' }, initialDelaySeconds: 20, periodSeconds: 10 };
  const liveness = { httpGet: { path: '/health', port: 'probes' }, initialDelaySeconds: 20, periodSeconds: 10 };
  const workload = {
    kind: 'Deployment',
    metadata: { name: 'eventing-controller' },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { containers: [{ name: 'c', readinessProbe: probe, livenessProbe: liveness }, { name: 'side' }] },
      },
    },
  };

  it('from the start and every second, the rest of the probe, the liveness probe and the pod as they were', () => {
    const patched = promptReadiness(workload) as unknown as typeof workload;
    const [main, side] = patched.spec.template.spec.containers as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(main.readinessProbe).toEqual({ ...probe, ...PROMPT_READINESS });
    expect(main.livenessProbe).toEqual(liveness);
    expect(side).toEqual({ name: 'side' });
    expect(patched.spec.replicas).toBe(1);
    expect(patched.spec.template.metadata).toEqual({ labels: { app: 'x' } });
  });

  it('leaves a workload with no readiness probe as it is', () => {
    const plain = { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'c' }] } } } };
    expect(promptReadiness(plain)).toBe(plain);
  });

  it('reaches every workload eventingManifests returns', () => {
    const docs = eventingManifests([workload]);
    const containers = (docs[0] as unknown as typeof workload).spec.template.spec.containers as {
      readinessProbe?: unknown;
    }[];
    expect(containers[0]!.readinessProbe).toEqual({ ...probe, ...PROMPT_READINESS });
  });
});
