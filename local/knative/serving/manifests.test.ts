import { describe, expect, it } from 'vitest';
import { applyPhases, configSettings, resolveKoImages, servingObjects, type KubeObject } from './manifests.ts';

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: controller, namespace: knative-serving}
spec:
  template:
    spec:
      containers:
        - name: controller
          image: ko://knative.dev/serving/cmd/controller
`;
const configDeployment = `
apiVersion: v1
kind: ConfigMap
metadata: {name: config-deployment, namespace: knative-serving}
data:
  queue-sidecar-image: ko://knative.dev/serving/cmd/queue
  _example: "..."
`;

describe("Serving's manifests as installed on the local cluster", () => {
  it('replaces each ko:// reference with the image built here, and refuses a command with no image', () => {
    expect(resolveKoImages('image: ko://knative.dev/serving/cmd/activator')).toBe(
      'image: cascade.local/knative-serving/activator:v0.50.0',
    );
    expect(() => resolveKoImages('image: ko://knative.dev/serving/cmd/migrate')).toThrow(/no image/);
  });

  it("patches a Deployment onto the real node, images never pulled, Knative's fields kept", () => {
    const [object] = servingObjects([deployment]);
    const pod = (object!.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(pod.nodeSelector).toEqual({ 'cascade.cascade.net/node': 'real' });
    expect(pod.tolerations).toEqual([
      { key: 'cascade.cascade.net/node', operator: 'Equal', value: 'real', effect: 'NoSchedule' },
    ]);
    expect(pod.containers).toEqual([
      {
        name: 'controller',
        image: 'cascade.local/knative-serving/controller:v0.50.0',
        imagePullPolicy: 'IfNotPresent',
      },
    ]);
  });

  it('sets the queue sidecar, the registries that skip tag resolution, and keeps the example', () => {
    const [object] = servingObjects([configDeployment]);
    expect(object!.data).toEqual({
      'queue-sidecar-image': 'cascade.local/knative-serving/queue:v0.50.0',
      'registries-skipping-tag-resolving': 'kind.local,ko.local,dev.local,cascade.local',
      _example: '...',
    });
  });

  it("adds the caller's autoscaler settings to Traefik's ingress class, and leaves Serving's features as released", () => {
    const config = configSettings({ autoscaler: { 'stable-window': '6s' } });
    expect(config['config-autoscaler']).toEqual({ 'stable-window': '6s' });
    expect(config['config-network']).toEqual({ 'ingress-class': 'traefik.ingress.networking.knative.dev' });
    expect(config['config-features']).toBeUndefined();
  });

  it('applies CRDs and namespaces first and the webhook configurations last', () => {
    const of = (kind: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name: kind } });
    const phases = applyPhases(
      ['ValidatingWebhookConfiguration', 'Deployment', 'CustomResourceDefinition', 'Namespace'].map(of),
    );
    expect(phases.map((p) => p.map((o) => o.kind))).toEqual([
      ['CustomResourceDefinition', 'Namespace'],
      ['Deployment'],
      ['ValidatingWebhookConfiguration'],
    ]);
  });
});
