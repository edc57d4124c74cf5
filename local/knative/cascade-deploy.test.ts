import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { cascadeOverlay, cascadeReadyObjects, localBrokerAnnotations, servicePatch } from './cascade-deploy.ts';

describe('what npm start and the end-to-end tests wait for', () => {
  it('every Knative object of knative/, named as kubectl wait names it, and nothing else', () => {
    const objects = cascadeReadyObjects();
    const count = (prefix: string) => objects.filter((o) => o.startsWith(prefix)).length;
    expect(objects).toContain('services.serving.knative.dev/cascade');
    expect(objects).toContain('brokers.eventing.knative.dev/default');
    expect(objects).toContain('apiserversources.sources.knative.dev/cascade-jobs');
    expect(count('triggers.eventing.knative.dev/')).toBe(9);
    expect(count('sinkbindings.sources.knative.dev/')).toBe(3);
    expect(objects.filter((o) => !o.includes('.knative.dev/'))).toEqual([]);
    expect(new Set(objects).size).toBe(objects.length);
  });

  it('the SinkBindings first: one may patch the Service after it was Ready', () => {
    const objects = cascadeReadyObjects();
    const lastBinding = objects.findLastIndex((o) => o.startsWith('sinkbindings.'));
    expect(lastBinding).toBe(2);
    expect(objects.indexOf('services.serving.knative.dev/cascade')).toBeGreaterThan(lastBinding);
  });
});

const release = {
  install: '/tmp/release/dist/install.yaml',
  crds: '/tmp/release/dist/crds.yaml',
  repository: { release: 'ghcr.io/cascade/cascade', local: '127.0.0.1:5001/cascade/cascade' },
};

describe('the overlay npm start and the end-to-end tests apply', () => {
  it("is of the release's install.yaml, copied beside it, its image renamed to the local registry's copy, the digest kept", () => {
    const overlay = load(cascadeOverlay({ namespace: 'ns', release })) as {
      resources: string[];
      images: { name: string; newName?: string; newTag?: string; digest?: string }[];
    };
    expect(overlay.resources).toEqual(['install.yaml']);
    expect(overlay.images[0]).toEqual({ name: 'ghcr.io/cascade/cascade', newName: '127.0.0.1:5001/cascade/cascade' });
  });
});

describe("the local cluster's choices, which knative/ leaves to each cluster", () => {
  it('the Broker: the channel-based class, and the async handler unless asked for the synchronous Broker', () => {
    expect(localBrokerAnnotations(true)).toEqual({
      'eventing.knative.dev/broker.class': 'MTChannelBasedBroker',
      'messaging.knative.dev/async-handler': 'true',
    });
    expect(localBrokerAnnotations(false)).toEqual({ 'eventing.knative.dev/broker.class': 'MTChannelBasedBroker' });
  });

  it('the overlay npm start applies merges them into the Broker default: the asynchronous one', () => {
    const overlay = load(cascadeOverlay({ namespace: 'ns', release })) as {
      patches: { patch: string }[];
    };
    const brokerPatches = overlay.patches
      .map((p) => load(p.patch) as { kind?: string; metadata?: object })
      .filter((p) => p.kind === 'Broker');
    expect(brokerPatches).toEqual([
      {
        apiVersion: 'eventing.knative.dev/v1',
        kind: 'Broker',
        metadata: { name: 'default', annotations: localBrokerAnnotations(true) },
      },
    ]);
  });
});

describe("a bench's or a test's change to the Service cascade", () => {
  const change = { annotations: { 'autoscaling.knative.dev/target': '2' }, env: { CASCADE_RATE_LIMIT: '1000000' } };

  it("adds the revision annotations, the key escaped, and the function container's variables", () => {
    expect(servicePatch(change)).toEqual([
      { op: 'add', path: '/spec/template/metadata/annotations/autoscaling.knative.dev~1target', value: '2' },
      {
        op: 'add',
        path: '/spec/template/spec/containers/0/env/-',
        value: { name: 'CASCADE_RATE_LIMIT', value: '1000000' },
      },
    ]);
  });

  it('is a patch of the overlay only when asked for', () => {
    const targets = (service?: typeof change) =>
      (
        load(cascadeOverlay({ namespace: 'ns', release, service })) as { patches: { target: { kind: string } }[] }
      ).patches
        .map((p) => p.target.kind)
        .filter((kind) => kind === 'Service');
    expect(targets()).toEqual([]);
    expect(targets(change)).toEqual(['Service']);
  });
});
