// The overlays of knative/: deploy/overlay-example, the documented overlay a
// platform team copies for its namespace, its registry and the image by
// digest (docs/deploy/kustomize.md), built with `kubectl kustomize` and
// dry-run on the real API server against the real Knative CRDs; and the
// local cluster's own overlay, the only place the Broker gets a class and
// the async-handler annotation.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { load, loadAll } from 'js-yaml';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { cascadeOverlay, OVERLAY_INSTALL } from '../local/knative/cascade-deploy.ts';
import { tempDir } from '../local/temp-dir.ts';
import { renderManifests, stream } from '../scripts/dist/manifests.ts';
import { installKnativeCrds } from './support/knative-crds.ts';
import { dryRun } from './support/dry-run.ts';
import { adminKubeConfig, adminKubeconfigPath } from './support/kube.ts';

const NAMESPACE = 'cascade-operator';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: any };

let objects: Manifest[] = [];

beforeAll(async () => {
  await installKnativeCrds(adminKubeconfigPath());
  objects = loadAll(await runCommand(kubectlPath(), ['kustomize', join(repoRoot, 'knative')])) as Manifest[];
}, 300_000);

function byKind<T extends Manifest>(docs: T[], kind: string, name: string): T {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

const find = (kind: string, name: string) => structuredClone(byKind(objects, kind, name));

describe('kubectl kustomize deploy/overlay-example (image, registry and namespace of your own)', () => {
  const OVERLAY = join(repoRoot, 'deploy', 'overlay-example');
  const kustomization = () =>
    load(readFileSync(join(OVERLAY, 'kustomization.yaml'), 'utf8')) as {
      namespace: string;
      images: { name: string; newName: string; digest: string }[];
    };
  const PULL_SECRETS = [{ name: 'registry-credentials' }];

  it('is knative/ in its namespace, every image by digest from its registry, pulled with its Secret, and nothing else changed', async () => {
    const { namespace, images } = kustomization();
    const docs = loadAll(await runCommand(kubectlPath(), ['kustomize', OVERLAY])) as Manifest[];
    const text = JSON.stringify(docs);
    expect(text).not.toContain(NAMESPACE);
    for (const image of images) {
      expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(text).not.toContain(image.name);
    }
    // one image: the function's, the janitor's and the dead-letter sink's
    expect(images).toHaveLength(1);
    const cascade = `${images[0]!.newName}@${images[0]!.digest}`;
    const overlaid = docs.map((d) => structuredClone(d));
    const byName = (kind: string, name: string) => overlaid.find((d) => d.kind === kind && d.metadata.name === name)!;
    expect(byName('Namespace', namespace)).toBeDefined();
    const fn = byName('Service', 'cascade').spec.template.spec;
    const janitor = byName('CronJob', 'cascade-janitor').spec.jobTemplate.spec.template.spec;
    const dls = byName('Service', 'cascade-dead-letters').spec.template.spec;
    expect([fn.containers[0].image, janitor.containers[0].image, dls.containers[0].image]).toEqual([
      cascade,
      cascade,
      cascade,
    ]);
    expect(dls.imagePullSecrets).toEqual(PULL_SECRETS);
    for (const sa of ['cascade-function', 'cascade-janitor']) {
      expect((byName('ServiceAccount', sa) as { imagePullSecrets?: unknown }).imagePullSecrets).toEqual(PULL_SECRETS);
    }
    expect([fn.serviceAccountName, janitor.serviceAccountName]).toEqual(['cascade-function', 'cascade-janitor']);

    // Undone, those changes give knative/ back, object for object.
    const undone = JSON.parse(
      JSON.stringify(overlaid)
        .replaceAll(`"${namespace}"`, `"${NAMESPACE}"`)
        .replaceAll(cascade, find('Service', 'cascade').spec.template.spec.containers[0].image),
    ) as (Manifest & { imagePullSecrets?: unknown })[];
    for (const d of undone) delete d.imagePullSecrets;
    delete byKind(undone, 'Service', 'cascade-dead-letters').spec.template.spec.imagePullSecrets;
    expect(undone).toEqual(objects);
  });

  it('passes a server-side dry run in its namespace', async () => {
    const { namespace } = kustomization();
    const docs = loadAll(await runCommand(kubectlPath(), ['kustomize', OVERLAY])) as Manifest[];
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({
      body: { metadata: { name: namespace, labels: { 'cascade.cascade.net/test': 'true' } } },
    });
    try {
      const lines = (await dryRun(docs)).trim().split('\n');
      expect(lines).toHaveLength(docs.length);
      expect(lines).toEqual(
        expect.arrayContaining([
          'service.serving.knative.dev/cascade',
          'clusterrole.rbac.authorization.k8s.io/cascade-edit',
        ]),
      );
    } finally {
      await core.deleteNamespace({ name: namespace });
    }
  });
});

describe("the local cluster's overlay (local/knative/cascade-deploy.ts), as npm start applies it", () => {
  it("gives the Broker the local class and the async handler, and the image the local registry's name, its digest kept", async () => {
    const digest = `sha256:${'0'.repeat(64)}`;
    const repository = { release: 'ghcr.io/cascade/cascade', local: '127.0.0.1:5001/cascade/cascade' };
    const { install } = await renderManifests({
      kubectl: kubectlPath(),
      root: repoRoot,
      work: tempDir('cascade-release-render-'),
      repository: repository.release,
      digest,
    });
    const dir = tempDir('cascade-local-overlay-');
    const release = { install: join(dir, OVERLAY_INSTALL), crds: join(dir, 'crds.yaml'), repository };
    writeFileSync(release.install, stream([], install));
    writeFileSync(join(dir, 'kustomization.yaml'), cascadeOverlay({ namespace: NAMESPACE, release }));
    const docs = loadAll(await runCommand(kubectlPath(), ['kustomize', dir])) as Manifest[];
    const service = byKind(docs, 'Service', 'cascade');
    expect(service.spec.template.spec.containers[0].image).toBe(`${repository.local}@${digest}`);
    const broker = byKind(docs, 'Broker', 'default') as Manifest & { metadata: { annotations?: object } };
    expect(broker.metadata.annotations).toEqual({
      'eventing.knative.dev/broker.class': 'MTChannelBasedBroker',
      'messaging.knative.dev/async-handler': 'true',
    });
    delete broker.metadata.annotations;
    expect(broker).toEqual(find('Broker', 'default'));
  });
});
