import { describe, expect, it } from 'vitest';
import { cascadeReadyObjects } from './cascade-deploy.ts';

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
});
