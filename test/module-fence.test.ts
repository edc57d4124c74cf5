// Module pods are fenced, on the real kube-apiserver (its own Pod Security
// admission and ValidatingAdmissionPolicy; kwok runs the pods):
// - knative/module-policy.yaml refuses, in a namespace labelled as
//   knative/namespace.yaml labels its own, what docs/security.md says a
//   scenario may not ask for; where the namespace enforces "restricted", also
//   what Pod Security would refuse of the Job's pods, and nothing Pod Security
//   accepts (each case is checked on a Pod too). The policy's expressions read
//   dynamic values, which the API server does not type-check: a misspelt
//   field would let its case through, so every check has a case here;
// - the overlay docs/security.md shows for "baseline" builds, and a module
//   running as root passes in a namespace labelled as it says;
// - a run whose module asks for a privileged pod fails at once, with
//   JobCreationFailed and the policy's reason in its condition, and no Job;
// - a restricted module runs to Succeeded in such a namespace, its pods as
//   the ServiceAccount cascade-module, with no API token mounted.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BatchV1Api, CoreV1Api, type V1Job, type V1Namespace, type V1Pod } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { restrictedContainer } from '../local/node/real-modules.ts';
import { tempDir } from '../local/temp-dir.ts';
import { isTerminalPhase } from '../shared/api/cascade-run.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness, post } from './support/cascade-harness.ts';
import { adminKubeConfig, apiStatus, createTestNamespace, waitFor } from './support/kube.ts';
import {
  applyModulePolicy,
  dryRunJob,
  fenceNamespace,
  moduleJob,
  namespaceLabels,
  POLICY,
  type PodSpec as Spec,
  policyObjects,
  removeModulePolicy,
} from './support/module-fence.ts';

type SecurityContext = Record<string, unknown>;

let restricted = '';
let baseline = '';
let unfenced = '';

beforeAll(async () => {
  [restricted, baseline, unfenced] = await Promise.all([
    createTestNamespace('cascade-fence-restricted'),
    createTestNamespace('cascade-fence-baseline'),
    createTestNamespace('cascade-fence-none'),
  ]);
  await fenceNamespace(restricted);
  await fenceNamespace(baseline, 'baseline');
  await applyModulePolicy(restricted);
}, 120_000);

afterAll(removeModulePolicy);

/** The first container's securityContext, changed by `change`. */
const container =
  (change: (sc: SecurityContext) => void) =>
  (spec: Spec): void => {
    change(spec.containers[0]!.securityContext as SecurityContext);
  };

/** The pod of `job` as a Pod, dry-run in `namespace`: what Pod Security says of it. */
async function podSecurity(namespace: string, job: V1Job): Promise<string> {
  const pod: V1Pod = { metadata: { name: 'probe' }, spec: job.spec!.template.spec };
  try {
    await adminKubeConfig().makeApiClient(CoreV1Api).createNamespacedPod({ namespace, body: pod, dryRun: 'All' });
    return 'accepted';
  } catch (error) {
    if (apiStatus(error) !== 403) throw error;
    return 'refused';
  }
}

describe('knative/module-policy.yaml', () => {
  it('is a ValidatingAdmissionPolicy and its binding, as in knative/namespace.yaml', async () => {
    expect(policyObjects().map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      `ValidatingAdmissionPolicy/${POLICY}`,
      `ValidatingAdmissionPolicyBinding/${POLICY}`,
    ]);
    expect(namespaceLabels()).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'cascade.cascade.net/fence': 'modules',
    });
  });

  const everywhere: [string, (spec: Spec) => void, RegExp][] = [
    [
      'a privileged container',
      container((sc) => {
        for (const key of Object.keys(sc)) delete sc[key];
        sc.privileged = true;
      }),
      /a module may not run a privileged container: m$/,
    ],
    ['hostNetwork', (s) => (s.hostNetwork = true), /may not share the host namespaces: hostNetwork$/],
    ['hostPID and hostIPC', (s) => Object.assign(s, { hostPID: true, hostIPC: true }), /hostPID, hostIPC$/],
    [
      'a hostPath volume',
      (s) => (s.volumes = [{ name: 'root', hostPath: { path: '/' } }]),
      /may not mount a hostPath volume: root$/,
    ],
    [
      'a host port',
      (s) => (s.containers[0]!.ports = [{ containerPort: 80, hostPort: 80 }]),
      /may not open a host port: m$/,
    ],
    [
      'an added capability',
      container((sc) => (sc.capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] })),
      /may add no capability but NET_BIND_SERVICE: m$/,
    ],
  ];

  it.each(everywhere)('refuses %s, in a restricted and in a baseline namespace', async (_what, change, reason) => {
    for (const namespace of [restricted, baseline]) {
      const outcome = await dryRunJob(namespace, moduleJob('refused', change));
      expect(outcome).toMatch(/^422 /);
      expect(outcome).toContain(`ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}' denied request`);
      expect(outcome).toMatch(reason);
      // Pod Security "baseline" refuses each of these cases too
      expect(await podSecurity(baseline, moduleJob('refused', change))).toBe('refused');
    }
  });

  const restrictedOnly: [string, (spec: Spec) => void, RegExp][] = [
    ['runAsNonRoot unset', container((sc) => delete sc.runAsNonRoot), /set runAsNonRoot: true for m$/],
    [
      'runAsNonRoot false on the pod',
      (s) => (s.securityContext = { runAsNonRoot: false }),
      /set runAsNonRoot: true for the pod$/,
    ],
    ['runAsUser 0', container((sc) => (sc.runAsUser = 0)), /runAsUser 0 \(root\) in m$/],
    ['runAsUser 0 on the pod', (s) => (s.securityContext = { runAsUser: 0 }), /runAsUser 0 \(root\) in the pod$/],
    [
      'allowPrivilegeEscalation unset',
      container((sc) => delete sc.allowPrivilegeEscalation),
      /set allowPrivilegeEscalation: false for m$/,
    ],
    ['no seccompProfile', container((sc) => delete sc.seccompProfile), /RuntimeDefault or Localhost for m$/],
    [
      'seccompProfile Unconfined on the pod',
      (s) => (s.securityContext = { seccompProfile: { type: 'Unconfined' } }),
      /RuntimeDefault or Localhost for the pod$/,
    ],
    ['capabilities not dropped', container((sc) => delete sc.capabilities), /drop ALL capabilities in m$/],
    [
      'an nfs volume',
      (s) => (s.volumes = [{ name: 'share', nfs: { server: 'nfs.example', path: '/x' } }]),
      /projected and secret volumes: share$/,
    ],
    [
      'an init container without a securityContext',
      (s) => (s.initContainers = [{ name: 'init', image: 'registry.example/init:1' }]),
      /set runAsNonRoot: true for init$/,
    ],
  ];

  it.each(restrictedOnly)(
    'refuses %s where the namespace enforces restricted, as Pod Security would refuse the pod; not in baseline',
    async (_what, change, reason) => {
      const job = moduleJob('restricted', change);
      const outcome = await dryRunJob(restricted, job);
      expect(outcome).toMatch(/^422 /);
      expect(outcome).toContain(`denied request: the namespace enforces Pod Security "restricted"`);
      expect(outcome).toMatch(reason);
      expect(await podSecurity(restricted, job)).toBe('refused');
      expect(await dryRunJob(baseline, job)).toBe('accepted');
    },
  );

  const allowed: [string, (spec: Spec) => void][] = [
    ['the restricted container', () => {}],
    ['NET_BIND_SERVICE added', container((sc) => (sc.capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }))],
    [
      'runAsNonRoot and seccompProfile set on the pod only',
      (s) => {
        s.securityContext = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
        const sc = s.containers[0]!.securityContext as SecurityContext;
        delete sc.runAsNonRoot;
        delete sc.seccompProfile;
      },
    ],
    ['runAsUser 1000', container((sc) => (sc.runAsUser = 1000))],
    [
      'a Windows pod without the fields Pod Security asks of Linux pods only',
      (s) => {
        s.os = { name: 'windows' };
        s.containers[0]!.securityContext = { runAsNonRoot: true };
      },
    ],
    [
      'the volumes restricted allows',
      (s) =>
        (s.volumes = [
          { name: 'scratch', emptyDir: {} },
          { name: 'config', configMap: { name: 'c' } },
          { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 't', audience: 'broker' } }] } },
        ]),
    ],
  ];

  it.each(allowed)('accepts %s where the namespace enforces restricted, as Pod Security does', async (_w, change) => {
    const job = moduleJob('allowed', change);
    expect(await dryRunJob(restricted, job)).toBe('accepted');
    expect(await podSecurity(restricted, job)).toBe('accepted');
  });

  it('leaves alone Jobs without the run label, and namespaces without the fence label', async () => {
    const privileged = (spec: Spec) => {
      spec.containers = [{ name: 'm', image: 'registry.example/m:1', securityContext: { privileged: true } }];
    };
    const unlabelled = moduleJob('not-a-module', privileged);
    delete unlabelled.metadata!.labels;
    // Pod Security checks pods, not Jobs: the Job itself is accepted
    expect(await dryRunJob(restricted, unlabelled)).toBe('accepted');
    expect(await dryRunJob(unfenced, moduleJob('unfenced', privileged))).toBe('accepted');
  });
});

describe('the overlay docs/security.md shows for a module that needs baseline', () => {
  it('builds with kubectl kustomize, and a module running as root passes where its namespace is labelled so', async () => {
    const page = readFileSync(join(repoRoot, 'docs', 'security.md'), 'utf8');
    const block = /```yaml\n(# kustomization\.yaml of your overlay\n[\s\S]*?)```/.exec(page)?.[1];
    expect(block).toBeDefined();
    const dir = tempDir('cascade-baseline-overlay-');
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      block!.replace('../knative', relative(dir, join(repoRoot, 'knative'))),
    );
    const built = loadAll(await runCommand(kubectlPath(), ['kustomize', dir])) as V1Namespace[];
    const labels = built.find((o) => o.kind === 'Namespace')!.metadata!.labels!;
    expect(labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/warn': 'restricted',
      'cascade.cascade.net/fence': 'modules',
    });

    const namespace = await createTestNamespace('cascade-fence-overlay');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: namespace });
    ns.metadata!.labels = { ...ns.metadata!.labels, ...labels };
    await core.replaceNamespace({ name: namespace, body: ns });
    const root = moduleJob('root', (spec) => (spec.containers[0]!.securityContext = { runAsUser: 0 }));
    expect(await dryRunJob(restricted, root)).toMatch(/^422 /);
    expect(await dryRunJob(namespace, root)).toBe('accepted');
    expect(await podSecurity(namespace, root)).toBe('accepted');
    expect(
      await dryRunJob(
        namespace,
        moduleJob('host', (spec) => (spec.hostNetwork = true)),
      ),
    ).toMatch(/denied request: a module may not share the host namespaces: hostNetwork$/);
  });
});

describe('a run in a fenced namespace', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it("whose module asks for a privileged pod fails with JobCreationFailed and the policy's reason, and no Job", async () => {
    const m = imageModule('privileged', {});
    m.template.spec!.containers[0]!.securityContext = { privileged: true };
    h = await cascadeHarness({ modules: [m, imageModule('last', {})], source: false });
    await fenceNamespace(h.ns);
    await applyModulePolicy(h.ns);

    const started = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'f3c1d-fenced' });
    expect(started.status).toBe(200);
    const run = await h.waitEnded(String(started.body.run));
    expect(run.status).toMatchObject({ phase: 'Failed', currentModule: 'privileged', currentStep: 0 });
    const condition = run.status?.conditions?.find((c) => c.type === 'Succeeded');
    expect(condition).toMatchObject({ status: 'False', reason: 'JobCreationFailed' });
    expect(condition?.message).toMatch(/^module privileged \(step 1\): the API server refused the Job: /);
    expect(condition?.message).toContain(`ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}'`);
    expect(condition?.message).toMatch(/denied request: a module may not run a privileged container: privileged$/);
    expect(run.status?.modules?.map((s) => [s.phase, s.reason ?? ''])).toEqual([
      ['Failed', 'JobCreationFailed'],
      ['Pending', ''],
    ]);
    const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
    expect(jobs.items).toEqual([]);
  });

  it('whose modules are restricted runs to Succeeded, its pods as cascade-module with no API token', async () => {
    const restrictedModule = (name: string) => {
      const m = imageModule(name, {}, { delayMs: 1500 });
      m.template.spec!.containers[0]!.securityContext = structuredClone(restrictedContainer);
      return m;
    };
    h = await cascadeHarness({ modules: [restrictedModule('grayscale'), restrictedModule('diff')] });
    await fenceNamespace(h.ns);
    await applyModulePolicy(h.ns);

    const started = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'a7b2e-fenced' });
    expect(started.status).toBe(200);
    const name = String(started.body.run);
    // the pods, as seen while they run: an ended run deletes its Jobs, and with them their pods
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    const seen = new Map<string, V1Pod>();
    const run = await waitFor(
      async () => {
        const pods = await core.listNamespacedPod({ namespace: h!.ns, labelSelector: `${LABEL_RUN}=${name}` });
        for (const pod of pods.items) seen.set(pod.metadata!.name!, pod);
        const current = await h!.getRun(name);
        return current.status?.notified && isTerminalPhase(current.status.phase) ? current : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: `run ${name} ended` },
    );
    expect(run.status?.phase).toBe('Succeeded');
    expect([...seen.values()].map((p) => p.metadata?.labels?.['cascade.cascade.net/step']).sort()).toEqual(['0', '1']);
    for (const pod of seen.values()) {
      expect(pod.spec).toMatchObject({ serviceAccountName: 'cascade-module', automountServiceAccountToken: false });
      const tokens = (pod.spec?.volumes ?? []).filter((v) =>
        v.projected?.sources?.some((s) => s.serviceAccountToken !== undefined),
      );
      expect(tokens).toEqual([]);
      expect(pod.spec?.containers[0]?.volumeMounts ?? []).toEqual([]);
    }
  });
});
