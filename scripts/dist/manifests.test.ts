// How the release's manifests are cut from kustomize's renders: documents
// split and joined as written, the CRDs apart, the overlay that pins the
// image, and the check that no Cascade image is left unpinned. The real
// renders are test/dist.test.ts'.
import { describe, expect, it } from 'vitest';
import { documents, installOverlay, KNATIVE_IMAGE_NAME, splitManifests, stream, unpinnedImages } from './manifests.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const crd = (name: string) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${name}\n`;
const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: "---"\n';

describe('documents and stream', () => {
  it('split a stream at its separators, keep each document as written, and join them again after a header', () => {
    const docs = documents(`${configMap}---\n${crd('runs.example.net')}`);
    expect(docs.map((d) => [d.kind, d.name])).toEqual([
      ['ConfigMap', 'cfg'],
      ['CustomResourceDefinition', 'runs.example.net'],
    ]);
    expect(docs[0]!.text).toBe(configMap);
    expect(stream(['one', 'two'], docs)).toBe(`# one\n# two\n---\n${configMap}---\n${crd('runs.example.net')}`);
    expect(documents(stream(['x'], docs))).toEqual(docs);
  });
});

describe('splitManifests', () => {
  it('leaves the CRDs out of install.yaml, whatever else knative/ holds', () => {
    const { install, crds } = splitManifests(`${crd('a.x')}---\n${configMap}---\n${crd('b.x')}`, crd('a.x'));
    expect(install.map((d) => d.kind)).toEqual(['ConfigMap']);
    expect(crds.map((d) => d.name)).toEqual(['a.x']);
  });

  it('refuses a crds/ that holds more than CRDs: crds.yaml is CRDs alone', () => {
    expect(() => splitManifests('', `${crd('a.x')}---\n${configMap}`)).toThrow(/more than CRDs: ConfigMap/);
  });
});

describe('installOverlay', () => {
  it("renames knative/'s image and pins it by digest, naming knative/ relative to the overlay", () => {
    const overlay = installOverlay('/tmp/overlay', '/work/repo/knative', {
      repository: 'reg.example/c',
      digest: DIGEST,
    });
    expect(overlay).toBe(
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        '  - ../../work/repo/knative',
        'images:',
        `  - name: ${KNATIVE_IMAGE_NAME}`,
        '    newName: reg.example/c',
        `    digest: ${DIGEST}`,
        '',
      ].join('\n'),
    );
  });
});

describe('unpinnedImages', () => {
  it("finds every image but the release's by digest: by tag, by another digest, by knative/'s name, or another image", () => {
    const yaml = [
      `        image: reg.example/c@${DIGEST}`,
      `      - image: reg.example/c@sha256:${'b'.repeat(64)}`,
      '            image: "reg.example/c:latest"',
      `            image: ${KNATIVE_IMAGE_NAME}:latest`,
      '      - image: gcr.io/knative-releases/knative.dev/eventing/cmd/event_display',
      '        image: reg.example/cascade-other:1',
    ].join('\n');
    expect(unpinnedImages(yaml, 'reg.example/c', DIGEST)).toEqual([
      `reg.example/c@sha256:${'b'.repeat(64)}`,
      'reg.example/c:latest',
      `${KNATIVE_IMAGE_NAME}:latest`,
      'gcr.io/knative-releases/knative.dev/eventing/cmd/event_display',
      'reg.example/cascade-other:1',
    ]);
    expect(unpinnedImages(`image: reg.example/c@${DIGEST}\n`, 'reg.example/c', DIGEST)).toEqual([]);
  });

  it('reads a registry with a port as a registry, not a tag', () => {
    expect(unpinnedImages('image: localhost:5000/c:dev\n', 'localhost:5000/c', DIGEST)).toEqual([
      'localhost:5000/c:dev',
    ]);
  });
});
