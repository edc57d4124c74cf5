// knative/user-roles.yaml on the real API server: its ClusterRoles, applied
// with kubectl, are aggregated by the control plane's
// clusterrole-aggregation-controller into the built-in `view`, `edit` and
// `admin`. ServiceAccounts bound to those with a RoleBinding, as a platform
// team grants people a namespace, then make real calls: `view` gets, lists
// and watches CascadeRuns and CascadeAutoOperators and writes nothing;
// `edit` and `admin` also create, annotate and delete them; none writes a
// run's status, which stays the function's and the janitor's.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1ClusterRole,
} from '@kubernetes/client-node';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { ANNOTATION_CANCEL_REQUESTED_AT } from '../shared/names.ts';
import { url } from '../shared/kube/rest.ts';
import { streamGet } from '../shared/kube/stream-get.ts';
import { connectionOf } from '../local/kube.ts';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { createOperator, SCENARIO } from './support/cascade-harness.ts';
import { createRun } from './support/janitor.ts';
import {
  adminKubeConfig,
  adminKubeconfigPath,
  apiStatus,
  createTestNamespace,
  serviceAccountKubeConfig,
  waitFor,
} from './support/kube.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const ROLES = ['cascade-view', 'cascade-edit'];
type Role = 'view' | 'edit' | 'admin';
const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);

let ns = '';
let createdRoles = false;
const configs = new Map<Role, KubeConfig>();

const kubectl = (...args: string[]) => runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, ...args]);

/** The rules of a built-in ClusterRole that name Cascade's group, once aggregated. */
const cascadeRules = (role: V1ClusterRole) => (role.rules ?? []).filter((r) => r.apiGroups?.includes(G.group));

/** The HTTP status of the call: 200 when it passed. */
async function status(call: Promise<unknown>): Promise<number | undefined> {
  return call.then(
    () => 200,
    (error: unknown) => apiStatus(error),
  );
}

/** The status a watch of `path` is answered with, through shared/kube: 200 once it streams. */
function watchStatus(kc: KubeConfig, path: string): Promise<number | undefined> {
  const conn = connectionOf(kc);
  return new Promise((resolve, reject) => {
    const req = streamGet(conn, url(conn, path, { watch: 'true' }), 30_000, (res) => {
      resolve(res.statusCode);
      req.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  createdRoles = (await status(rbac.readClusterRole({ name: 'cascade-view' }))) === 404;
  // as `kubectl apply -k knative/` applies it: cluster-scoped, no namespace
  await kubectl('apply', '-f', join(repoRoot, 'knative', 'user-roles.yaml'));
  ns = await createTestNamespace('cascade-user-roles');
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  for (const role of ['view', 'edit', 'admin'] as const) {
    const name = `${role}er`;
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
      },
    });
    configs.set(role, await serviceAccountKubeConfig(ns, name));
  }
  // The controller aggregates in the background: wait until each built-in role holds Cascade's rules.
  for (const [role, verb] of [
    ['view', 'watch'],
    ['edit', 'create'],
    ['admin', 'create'],
  ] as const) {
    await waitFor(
      async () => cascadeRules(await rbac.readClusterRole({ name: role })).some((r) => r.verbs.includes(verb)),
      { message: `${role} aggregates Cascade's rules` },
    );
  }
  await createOperator(adminKubeConfig().makeApiClient(CustomObjectsApi), ns, SCENARIO, {
    scenarioconfig: { cascademodules: successScenario(0) },
  });
}, 300_000);

afterAll(async () => {
  if (createdRoles) for (const name of ROLES) await rbac.deleteClusterRole({ name });
});

const custom = (role: Role) => configs.get(role)!.makeApiClient(CustomObjectsApi);
const runs = () => ({ ...G, namespace: ns, plural: 'cascaderuns' });
const operators = () => ({ ...G, namespace: ns, plural: 'cascadeautooperators' });
const CANCEL_AT = '2026-12-01T10:00:00Z';
const cancelAnnotation = [
  { op: 'add', path: '/metadata/annotations', value: { [ANNOTATION_CANCEL_REQUESTED_AT]: CANCEL_AT } },
];

describe('knative/user-roles.yaml, aggregated into the built-in roles', () => {
  it('gives view exactly get, list and watch on both kinds and their status', async () => {
    const view = cascadeRules(await rbac.readClusterRole({ name: 'view' }));
    expect(view.flatMap((r) => r.verbs).sort()).toEqual(['get', 'list', 'watch']);
    expect(view.flatMap((r) => r.resources ?? []).sort()).toEqual([
      'cascadeautooperators',
      'cascadeautooperators/status',
      'cascaderuns',
      'cascaderuns/status',
    ]);
  });

  it('view: gets, lists and watches CascadeRuns and CascadeAutoOperators; creates, changes and deletes nothing', async () => {
    const run = await createRun({ custom: adminKubeConfig().makeApiClient(CustomObjectsApi), ns }, SCENARIO, {
      iuid: 'viewed-01',
      modules: successScenario(0),
    });
    const viewer = custom('view');
    const listed = (await viewer.listNamespacedCustomObject(runs())) as { items: CascadeRun[] };
    expect(listed.items.map((r) => r.metadata.name)).toContain(run);
    expect(await status(viewer.getNamespacedCustomObject({ ...runs(), name: run }))).toBe(200);
    expect(await status(viewer.getNamespacedCustomObjectStatus({ ...runs(), name: run }))).toBe(200);
    expect(await status(viewer.listNamespacedCustomObject(operators()))).toBe(200);
    expect(await status(viewer.getNamespacedCustomObject({ ...operators(), name: SCENARIO }))).toBe(200);
    const base = `/apis/${G.group}/${G.version}/namespaces/${ns}`;
    expect(await watchStatus(configs.get('view')!, `${base}/cascaderuns`)).toBe(200);
    expect(await watchStatus(configs.get('view')!, `${base}/cascadeautooperators`)).toBe(200);

    await expect(status(createRun({ custom: viewer, ns }, SCENARIO, { iuid: 'viewer-02', modules: [] }))).resolves.toBe(
      403,
    );
    expect(await status(viewer.patchNamespacedCustomObject({ ...runs(), name: run, body: cancelAnnotation }))).toBe(
      403,
    );
    expect(await status(viewer.deleteNamespacedCustomObject({ ...runs(), name: run }))).toBe(403);
    expect(await status(viewer.deleteNamespacedCustomObject({ ...operators(), name: SCENARIO }))).toBe(403);
    // a namespace the binding does not name: nothing
    expect(await status(viewer.listNamespacedCustomObject({ ...runs(), namespace: 'default' }))).toBe(403);
  });

  it.each(['edit', 'admin'] as const)(
    '%s: creates a CascadeRun, annotates it with a cancel request, reads it, deletes it; writes no status',
    async (role) => {
      const user = custom(role);
      const run = await createRun({ custom: user, ns }, SCENARIO, { iuid: `r${role}-01`, modules: successScenario(0) });
      expect(await status(user.patchNamespacedCustomObject({ ...runs(), name: run, body: cancelAnnotation }))).toBe(
        200,
      );
      const read = (await user.getNamespacedCustomObject({ ...runs(), name: run })) as CascadeRun;
      expect(read.metadata.annotations?.[ANNOTATION_CANCEL_REQUESTED_AT]).toBe(CANCEL_AT);
      expect(await watchStatus(configs.get(role)!, `/apis/${G.group}/${G.version}/namespaces/${ns}/cascaderuns`)).toBe(
        200,
      );
      expect(
        await status(
          user.replaceNamespacedCustomObjectStatus({
            ...runs(),
            name: run,
            body: { ...read, status: { phase: 'Succeeded' } },
          }),
        ),
      ).toBe(403);
      expect(await status(user.deleteNamespacedCustomObject({ ...runs(), name: run }))).toBe(200);
      expect(await status(user.listNamespacedCustomObject({ ...runs(), namespace: 'default' }))).toBe(403);
    },
  );
});
