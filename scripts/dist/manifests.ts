// The release's manifests, rendered by kustomize (the bundled kubectl's) from
// what knative/ and crds/ hold at build time, whatever objects they list:
// - install.yaml: knative/ without its CustomResourceDefinitions, the image
//   by digest (an overlay's `images:` sets it wherever knative/ names it);
// - crds.yaml: crds/ alone, applied apart, so that deleting install.yaml
//   leaves the CRDs, and every CascadeRun with them.
// The pure parts (documents, the overlay, the checks) are tested in
// manifests.test.ts; renderManifests runs kubectl.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { load } from 'js-yaml';
import { runCommand } from '../../local/cluster/run-command.ts';

/** The image name knative/ gives the function, the janitor and the dead-letter sink. */
export const KNATIVE_IMAGE_NAME = 'ghcr.io/cascade/cascade';
const CRD = 'CustomResourceDefinition';

export interface ManifestDocument {
  kind: string;
  name: string;
  /** The document as kustomize wrote it. */
  text: string;
}

/** The documents of a multi-document YAML stream, each with its kind and name. */
export function documents(yaml: string): ManifestDocument[] {
  return (
    yaml
      .split(/^---$/m)
      .map((text) => text.replace(/^\n+/, ''))
      // a part of comments alone, such as a stream's header, is no document
      .filter((text) => text.split('\n').some((l) => l.trim() !== '' && !l.trimStart().startsWith('#')))
      .map((text) => {
        const object = load(text) as { kind?: string; metadata?: { name?: string } } | null;
        return { kind: object?.kind ?? '', name: object?.metadata?.name ?? '', text };
      })
  );
}

/** Documents back into one stream, after a comment header. */
export function stream(header: string[], docs: ManifestDocument[]): string {
  const comment = header.map((line) => `# ${line}\n`).join('');
  return comment + docs.map((d) => `---\n${d.text.endsWith('\n') ? d.text : `${d.text}\n`}`).join('');
}

/** The overlay's kustomization.yaml, in `dir`: knative/ with its image renamed and pinned by digest. */
export function installOverlay(dir: string, knative: string, image: { repository: string; digest: string }): string {
  return [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    // kustomize takes a base's path relative to the overlay only
    `  - ${relative(dir, knative)}`,
    'images:',
    `  - name: ${KNATIVE_IMAGE_NAME}`,
    `    newName: ${image.repository}`,
    `    digest: ${image.digest}`,
    '',
  ].join('\n');
}

/** Every `image:` of a stream but `repository@digest`: the release pulls its one image, by digest; [] when so. */
export function unpinnedImages(yaml: string, repository: string, digest: string): string[] {
  return [...yaml.matchAll(/^\s*(?:- )?image: *["']?([^\s"']+)/gm)]
    .map((m) => m[1]!)
    .filter((ref) => ref !== `${repository}@${digest}`);
}

export interface Manifests {
  install: ManifestDocument[];
  crds: ManifestDocument[];
}

/** Splits knative/'s render: everything but the CRDs, and checks that crds/ renders CRDs alone. */
export function splitManifests(knative: string, crds: string): Manifests {
  const crdDocs = documents(crds);
  const others = crdDocs.filter((d) => d.kind !== CRD);
  if (others.length > 0) throw new Error(`crds/ holds more than CRDs: ${others.map((d) => d.kind).join(', ')}`);
  return { install: documents(knative).filter((d) => d.kind !== CRD), crds: crdDocs };
}

/** Renders install.yaml's and crds.yaml's documents with kubectl kustomize; `work` is an empty directory for the overlay. */
export async function renderManifests(options: {
  kubectl: string;
  root: string;
  work: string;
  repository: string;
  digest: string;
}): Promise<Manifests> {
  const { kubectl, root, work, repository, digest } = options;
  writeFileSync(join(work, 'kustomization.yaml'), installOverlay(work, join(root, 'knative'), { repository, digest }));
  const knative = await runCommand(kubectl, ['kustomize', work]);
  const unpinned = unpinnedImages(knative, repository, digest);
  if (unpinned.length > 0)
    throw new Error(`install.yaml names an image but the release's by digest: ${unpinned.join(', ')}`);
  return splitManifests(knative, await runCommand(kubectl, ['kustomize', join(root, 'crds')]));
}
