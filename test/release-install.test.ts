// The release as a platform team installs it, on real Knative on the real
// node, with nothing from the checkout but the release itself:
// - `npm run dist` writes two releases of this commit, A and B, B with
//   another build tag, so another image and digest: another build;
// - the three commands of docs/deploy/index.md, read from that page and run
//   in a folder that holds only dist/, push A's image to the local registry
//   and apply its crds.yaml and install.yaml. The cluster chooses the Broker's
//   class; the namespace, made first, carries the cluster's placement of pods
//   on the real node. Every Cascade pod pulls the release's image by digest;
// - a run through the Broker Succeeds, and a module that asks for a
//   privileged pod is refused: the run says why (knative/module-policy.yaml);
// - B is installed the same way with 50 runs in flight, then A again with 50
//   more: every run Succeeds, each step's Job and pod made once.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_FILES, writeDist } from '../scripts/dist.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { realNodeNamespaceAnnotations } from '../local/knative/cascade-deploy.ts';
import { namespacePlacedModule as module } from '../local/node/real-modules.ts';
import { ensureRegistryTools, REGISTRY } from '../local/registry/registry.ts';
import { tempDir } from '../local/temp-dir.ts';
import { kubeconfigConnection } from '../shared/kube/connect.ts';
import { inform } from '../shared/kube/informer.ts';
import { httpsTransport } from '../shared/kube/watch-stream.ts';
import { LABEL_RUN } from '../shared/names.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { createOperator, SCENARIO } from './support/cascade-harness.ts';
import { ended, removeNamespace, requestRun, runOf, useKnative, waitRun } from './support/knative-cascade.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

/** The namespace install.yaml names: the release's own, unchanged. */
const NAMESPACE = 'cascade-operator';
const REPO = `${REGISTRY}/cascade/release`;
const RUNS_IN_FLIGHT = 50;

const SUCCESS = [module('grayscale', { foo: 'bar' }), module('binarization', { thresh: '128' }), module('diff', {})];
const PRIVILEGED = (() => {
  const m = module('privileged', {});
  const [c] = m.template.spec!.containers;
  const container = { ...c!, securityContext: { privileged: true } };
  return [{ ...m, template: { ...m.template, spec: { ...m.template.spec!, containers: [container] } } }];
})();

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The commands of docs/deploy/index.md's "Install the release": its first sh block. */
function installCommands(markdown: string): string[] {
  const section = markdown.split('### Install the release')[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

interface Release {
  /** A folder that holds dist/ and nothing else. */
  dir: string;
  digest: string;
  tag: string;
}

async function release(tag: string): Promise<Release> {
  const previous = process.env.BUILD_TAG;
  process.env.BUILD_TAG = tag;
  try {
    const dir = tempDir('cascade-user-');
    const written = await writeDist(join(dir, 'dist'), REPO);
    return { dir, digest: written.image.digest, tag };
  } finally {
    if (previous === undefined) delete process.env.BUILD_TAG;
    else process.env.BUILD_TAG = previous;
  }
}

/** Runs the docs' three commands in the release's folder, as a user's shell would. */
async function install(r: Release, crane: string): Promise<void> {
  const commands = installCommands(readFileSync(join(repoRoot, 'docs', 'deploy', 'index.md'), 'utf8'));
  expect(commands).toHaveLength(3);
  const env = {
    ...process.env,
    PATH: `${dirname(kubectlPath())}:${dirname(crane)}:${process.env.PATH ?? ''}`,
    KUBECONFIG: adminKubeconfigPath(),
    REPO,
    VERSION: r.tag,
  };
  for (const command of commands) {
    const { stdout } = await promisify(execFile)('sh', ['-c', command], { cwd: r.dir, env, maxBuffer: 16 << 20 });
    log(`release-install: ${command}: ${stdout.trim().split('\n').length} line(s)`);
  }
}

const kubectl = (...args: string[]) =>
  promisify(execFile)(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, '-n', NAMESPACE, ...args], {
    maxBuffer: 16 << 20,
  }).then((r) => r.stdout);

/** Waits until the Service `cascade` serves the revision of `digest`, and every Knative object is Ready. */
async function waitServing(digest: string): Promise<void> {
  await waitFor(
    async () => {
      const ksvc = JSON.parse(await kubectl('get', 'ksvc', 'cascade', '-o', 'json')) as {
        status?: { latestReadyRevisionName?: string; latestCreatedRevisionName?: string };
      };
      const { latestReadyRevisionName: ready, latestCreatedRevisionName: created } = ksvc.status ?? {};
      if (!ready || ready !== created) return false;
      const revision = JSON.parse(await kubectl('get', 'revision', ready, '-o', 'json')) as {
        spec: { containers: { image: string }[] };
      };
      return revision.spec.containers[0]!.image === `${REPO}@${digest}`;
    },
    { timeoutMs: 600_000, intervalMs: 2000, message: `the Service cascade serves ${digest}` },
  );
  await kubectl(
    'wait',
    '--for=condition=Ready',
    '--timeout=300s',
    'ksvc,broker,trigger,apiserversource,sinkbinding',
    '--all',
  );
}

/** Every Job and module pod of the namespace made meanwhile, by Job name: their uids. */
function recordMade(): {
  synced: Promise<void>;
  stop: () => { jobs: Map<string, Set<string>>; pods: Map<string, Set<string>> };
} {
  const jobs = new Map<string, Set<string>>();
  const pods = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, uid: string) =>
    map.set(key, (map.get(key) ?? new Set()).add(uid));
  const connection = kubeconfigConnection(adminKubeconfigPath());
  const watch = (path: string, labelSelector: string, on: (object: V1Job & V1Pod) => void) =>
    inform({ transport: httpsTransport(connection, path, { labelSelector }), on: (_c, o) => on(o as V1Job & V1Pod) });
  const informers = [
    watch(`/apis/batch/v1/namespaces/${NAMESPACE}/jobs`, LABEL_RUN, (job) =>
      add(jobs, job.metadata!.name!, job.metadata!.uid!),
    ),
    watch(`/api/v1/namespaces/${NAMESPACE}/pods`, 'job-name', (pod) =>
      add(pods, pod.metadata!.labels!['job-name']!, pod.metadata!.uid!),
    ),
  ];
  return {
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    stop: () => {
      for (const i of informers) i.stop();
      return { jobs, pods };
    },
  };
}

/** Installs `next` while RUNS_IN_FLIGHT runs go through the Broker; every run Succeeds, each step made once. */
async function installMidRuns(next: Release, crane: string): Promise<void> {
  const made = recordMade();
  await made.synced;
  const iuids = await Promise.all(Array.from({ length: RUNS_IN_FLIGHT }, () => requestRun(NAMESPACE)));
  await install(next, crane);
  await waitServing(next.digest);
  // the new revision serves while runs are still in flight
  const left = (await Promise.all(iuids.map((iuid) => runOf(NAMESPACE, iuid)))).filter((r) => !r || !ended(r));
  log(`release-install: ${next.tag} serves with ${left.length} of ${RUNS_IN_FLIGHT} runs not ended`);
  expect(left.length).toBeGreaterThan(0);
  const runs = await Promise.all(iuids.map((iuid) => waitRun(NAMESPACE, iuid, ended, 'ended', 600_000)));
  const { jobs, pods } = made.stop();
  expect(runs.filter((r) => r.status?.phase !== 'Succeeded').map((r) => [r.metadata.name, r.status])).toEqual([]);
  const stepJobs = runs.flatMap((r) => (r.status?.modules ?? []).map((m) => m.jobName!));
  expect(stepJobs).toHaveLength(RUNS_IN_FLIGHT * SUCCESS.length);
  expect(stepJobs.filter((name) => jobs.get(name)?.size !== 1 || pods.get(name)?.size !== 1)).toEqual([]);
}

/** The images of the Cascade objects: each Service's serving revision, the CronJob, and every pod that runs. */
async function cascadeImages(): Promise<string[]> {
  const images: string[] = [];
  for (const service of ['cascade', 'cascade-dead-letters']) {
    const ready = await kubectl('get', 'ksvc', service, '-o', 'jsonpath={.status.latestReadyRevisionName}');
    images.push(await kubectl('get', 'revision', ready, '-o', 'jsonpath={.spec.containers[0].image}'));
  }
  images.push(
    await kubectl(
      'get',
      'cronjob',
      'cascade-janitor',
      '-o',
      'jsonpath={.spec.jobTemplate.spec.template.spec.containers[0].image}',
    ),
  );
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const pods = await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'serving.knative.dev/service' });
  for (const pod of pods.items.filter((p) => p.status?.phase === 'Running'))
    images.push(...pod.spec!.containers.filter((c) => c.name === 'user-container').map((c) => c.image!));
  return images;
}

describe('the release, installed with the three commands of docs/deploy/index.md', () => {
  let a: Release;
  let b: Release;
  let crane = '';
  useKnative({}, async () => {
    const existing = await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .readNamespace({ name: NAMESPACE })
      .catch(() => undefined);
    if (existing && existing.metadata?.labels?.['cascade.cascade.net/test'] !== 'true')
      throw new Error(`the namespace ${NAMESPACE} exists and is not a test's: this test installs the release there`);
    if (existing) await removeNamespace(NAMESPACE);
    crane = (await ensureRegistryTools()).crane;
    a = await release('release-a');
    b = await release('release-b');
  });

  beforeAll(async () => {
    // The cluster's own choice, made before the install: where its pods run.
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({
      body: {
        metadata: {
          name: NAMESPACE,
          labels: { 'cascade.cascade.net/test': 'true' },
          annotations: realNodeNamespaceAnnotations(),
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await kubectl('delete', '--ignore-not-found', '--wait=false', '-f', join(a.dir, 'dist', DIST_FILES.install)).catch(
      () => '',
    );
    await removeNamespace(NAMESPACE);
  }, 600_000);

  it('A is two builds apart from B: another digest', () => {
    expect(a.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.digest).not.toBe(a.digest);
  });

  it('installs A on the cluster, every Cascade pod pulls its image by digest, and a run through the Broker Succeeds', async () => {
    await install(a, crane);
    await waitServing(a.digest);
    const custom = adminKubeConfig().makeApiClient(CustomObjectsApi);
    // runs beyond 10 queue in their CascadeRun: the node holds 30 pods
    await createOperator(custom, NAMESPACE, SCENARIO, {
      scenarioconfig: { cascademodules: SUCCESS },
      maxConcurrentRuns: 10,
    });
    await createOperator(custom, NAMESPACE, 'privileged', { scenarioconfig: { cascademodules: PRIVILEGED } });
    const run = await waitRun(NAMESPACE, await requestRun(NAMESPACE), ended, 'ended', 300_000);
    expect(run.status?.phase).toBe('Succeeded');
    const images = await cascadeImages();
    // two revisions, the CronJob, and the dead-letter sink's pod at least
    expect(images.length).toBeGreaterThanOrEqual(4);
    expect(new Set(images)).toEqual(new Set([`${REPO}@${a.digest}`]));
  }, 900_000);

  it('a module that asks for a privileged pod is refused: the run Fails, and its condition says why', async () => {
    const iuid = await requestRun(NAMESPACE, 'privileged');
    const run: CascadeRun = await waitRun(NAMESPACE, iuid, ended, 'ended', 120_000);
    expect(run.status?.phase).toBe('Failed');
    const condition = run.status?.conditions?.find((c) => c.type === 'Succeeded');
    expect(condition).toMatchObject({ status: 'False', reason: 'JobCreationFailed' });
    expect(condition?.message).toMatch(/a module may not run a privileged container/);
    const pods = await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: NAMESPACE, labelSelector: `${LABEL_RUN}=${run.metadata.name}` });
    expect(pods.items).toEqual([]);
  }, 300_000);

  it(`upgrades to B with ${RUNS_IN_FLIGHT} runs in flight: every run Succeeds, each step once`, async () => {
    await installMidRuns(b, crane);
    expect((await cascadeImages()).slice(0, 3)).toEqual(Array(3).fill(`${REPO}@${b.digest}`));
  }, 1_500_000);

  it(`downgrades to A with ${RUNS_IN_FLIGHT} runs in flight: every run Succeeds, each step once`, async () => {
    await installMidRuns(a, crane);
    expect((await cascadeImages()).slice(0, 3)).toEqual(Array(3).fill(`${REPO}@${a.digest}`));
  }, 1_500_000);
});
