// The deployed identities are least privilege: with a token of each
// ServiceAccount of knative/rbac.yaml and knative/apiserversource-rbac.yaml
// (applied to a test namespace as kustomize applies them to theirs), the API
// server's own authorizer answers SelfSubjectAccessReviews: everything the
// engine, the janitor and the ApiServerSource need is allowed, the rest
// denied; the modules' ServiceAccount may do none of it.
// A real call at the end checks that the reviews and the calls agree.
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationV1Api, BatchV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { applyManifests, manifests } from '../local/function-rbac.ts';
import { adminKubeConfig, apiStatus, createTestNamespace, serviceAccountKubeConfig } from './support/kube.ts';

type Sa = 'cascade-function' | 'cascade-janitor' | 'cascade-apiserversource' | 'cascade-module';
/** own: the deployment's namespace; other: another one; cluster: cluster-scoped. */
type Where = 'own' | 'other' | 'cluster';
type Row = [sa: Sa, verb: string, resource: string, where: Where, allowed: boolean];

const FN: Sa = 'cascade-function';
const JAN: Sa = 'cascade-janitor';
const SRC: Sa = 'cascade-apiserversource';
const MOD: Sa = 'cascade-module';
const CASCADE = 'cascade.cascade.net';

const rows: Row[] = [
  // the function: runs, their status, Jobs, the operator's counters, Events
  [FN, 'create', `${CASCADE}/cascaderuns`, 'own', true],
  [FN, 'get', `${CASCADE}/cascaderuns`, 'own', true],
  [FN, 'list', `${CASCADE}/cascaderuns`, 'own', true],
  [FN, 'watch', `${CASCADE}/cascaderuns`, 'own', true],
  [FN, 'update', `${CASCADE}/cascaderuns/status`, 'own', true],
  [FN, 'patch', `${CASCADE}/cascaderuns/status`, 'own', true],
  [FN, 'update', `${CASCADE}/cascaderuns/finalizers`, 'own', true],
  [FN, 'create', 'batch/jobs', 'own', true],
  [FN, 'get', 'batch/jobs', 'own', true],
  [FN, 'list', 'batch/jobs', 'own', true],
  [FN, 'delete', 'batch/jobs', 'own', true],
  [FN, 'get', `${CASCADE}/cascadeautooperators`, 'own', true],
  [FN, 'update', `${CASCADE}/cascadeautooperators`, 'own', true],
  [FN, 'update', `${CASCADE}/cascadeautooperators/status`, 'own', true],
  [FN, 'create', 'events', 'own', true],
  [FN, 'create', 'coordination.k8s.io/leases', 'own', true],
  // ... and nothing more
  [FN, 'update', `${CASCADE}/cascaderuns`, 'own', false],
  [FN, 'delete', `${CASCADE}/cascaderuns`, 'own', false],
  [FN, 'deletecollection', `${CASCADE}/cascaderuns`, 'own', false],
  [FN, 'create', `${CASCADE}/cascadeautooperators`, 'own', false],
  [FN, 'patch', `${CASCADE}/cascadeautooperators`, 'own', false],
  [FN, 'update', `${CASCADE}/cascadeautooperators`, 'other', false],
  [FN, 'delete', `${CASCADE}/cascadeautooperators`, 'own', false],
  [FN, 'update', 'batch/jobs', 'own', false],
  [FN, 'list', 'coordination.k8s.io/leases', 'own', false],
  [FN, 'delete', 'coordination.k8s.io/leases', 'own', false],
  [FN, 'create', 'coordination.k8s.io/leases', 'other', false],
  [FN, 'patch', 'batch/jobs', 'own', false],
  [FN, 'create', 'batch/cronjobs', 'own', false],
  [FN, 'get', 'secrets', 'own', false],
  [FN, 'list', 'secrets', 'own', false],
  [FN, 'get', 'configmaps', 'own', false],
  [FN, 'create', 'pods', 'own', false],
  [FN, 'list', 'pods', 'own', false],
  [FN, 'get', 'pods/log', 'own', false],
  [FN, 'create', 'pods/exec', 'own', false],
  [FN, 'create', 'serviceaccounts/token', 'own', false],
  [FN, 'create', 'rbac.authorization.k8s.io/roles', 'own', false],
  [FN, 'create', 'rbac.authorization.k8s.io/rolebindings', 'own', false],
  [FN, 'create', `${CASCADE}/cascaderuns`, 'other', false],
  [FN, 'create', 'batch/jobs', 'other', false],
  [FN, 'list', 'batch/jobs', 'other', false],
  [FN, 'create', 'events', 'other', false],
  [FN, 'create', 'namespaces', 'cluster', false],
  [FN, 'delete', 'namespaces', 'cluster', false],
  [FN, 'list', 'nodes', 'cluster', false],
  [FN, 'create', 'apiextensions.k8s.io/customresourcedefinitions', 'cluster', false],
  [FN, 'update', 'apiextensions.k8s.io/customresourcedefinitions', 'cluster', false],
  [FN, 'create', 'rbac.authorization.k8s.io/clusterroles', 'cluster', false],
  [FN, 'create', 'rbac.authorization.k8s.io/clusterrolebindings', 'cluster', false],
  // the janitor: old runs, stalled runs' status, the operator's finalizer
  [JAN, 'list', `${CASCADE}/cascaderuns`, 'own', true],
  [JAN, 'delete', `${CASCADE}/cascaderuns`, 'own', true],
  [JAN, 'update', `${CASCADE}/cascaderuns/status`, 'own', true],
  [JAN, 'get', `${CASCADE}/cascadeautooperators`, 'own', true],
  [JAN, 'update', `${CASCADE}/cascadeautooperators`, 'own', true],
  [JAN, 'update', `${CASCADE}/cascadeautooperators/status`, 'own', true],
  [JAN, 'list', 'batch/jobs', 'own', true],
  [JAN, 'delete', 'batch/jobs', 'own', true],
  [JAN, 'patch', `${CASCADE}/cascadeautooperators`, 'own', false],
  [JAN, 'delete', `${CASCADE}/cascadeautooperators`, 'own', false],
  [JAN, 'create', `${CASCADE}/cascadeautooperators`, 'own', false],
  [JAN, 'update', `${CASCADE}/cascaderuns`, 'own', false],
  [JAN, 'get', 'secrets', 'own', false],
  [JAN, 'list', 'secrets', 'own', false],
  [JAN, 'delete', 'pods', 'own', false],
  [JAN, 'delete', `${CASCADE}/cascaderuns`, 'other', false],
  [JAN, 'delete', 'batch/jobs', 'other', false],
  [JAN, 'delete', 'namespaces', 'cluster', false],
  [JAN, 'delete', 'apiextensions.k8s.io/customresourcedefinitions', 'cluster', false],
  [JAN, 'create', 'rbac.authorization.k8s.io/clusterroles', 'cluster', false],
  // the ApiServerSource's adapter: watches Jobs, nothing else
  [SRC, 'get', 'batch/jobs', 'own', true],
  [SRC, 'list', 'batch/jobs', 'own', true],
  [SRC, 'watch', 'batch/jobs', 'own', true],
  [SRC, 'create', 'batch/jobs', 'own', false],
  [SRC, 'delete', 'batch/jobs', 'own', false],
  [SRC, 'list', 'batch/jobs', 'other', false],
  [SRC, 'get', `${CASCADE}/cascaderuns`, 'own', true],
  [SRC, 'list', `${CASCADE}/cascaderuns`, 'own', true],
  [SRC, 'watch', `${CASCADE}/cascaderuns`, 'own', true],
  [SRC, 'update', `${CASCADE}/cascaderuns`, 'own', false],
  [SRC, 'update', `${CASCADE}/cascaderuns/status`, 'own', false],
  [SRC, 'list', `${CASCADE}/cascaderuns`, 'other', false],
  [SRC, 'get', 'secrets', 'own', false],
  [SRC, 'list', 'pods', 'own', false],
  [SRC, 'list', 'namespaces', 'cluster', false],
  // the modules (shared/core/job-manifest.ts): no Role at all
  [MOD, 'get', `${CASCADE}/cascaderuns`, 'own', false],
  [MOD, 'update', `${CASCADE}/cascaderuns/status`, 'own', false],
  [MOD, 'get', `${CASCADE}/cascadeautooperators`, 'own', false],
  [MOD, 'list', 'batch/jobs', 'own', false],
  [MOD, 'create', 'batch/jobs', 'own', false],
  [MOD, 'list', 'pods', 'own', false],
  [MOD, 'get', 'secrets', 'own', false],
  [MOD, 'get', 'configmaps', 'own', false],
  [MOD, 'create', 'events', 'own', false],
  [MOD, 'list', 'namespaces', 'cluster', false],
];

let namespace = '';
let otherNamespace = '';
const configs = new Map<Sa, KubeConfig>();

/** `[group/]resource[/subresource]`; the core group has no prefix, every other group has a dot or is `batch`. */
function attributes(verb: string, resource: string, where: Where) {
  const parts = resource.split('/');
  const hasGroup = parts[0]!.includes('.') || parts[0] === 'batch';
  const [group, plural, subresource] = hasGroup ? parts : ['', ...parts];
  const ns = where === 'own' ? namespace : where === 'other' ? otherNamespace : undefined;
  return { verb, group, resource: plural, subresource, namespace: ns };
}

async function allowed(sa: Sa, verb: string, resource: string, where: Where): Promise<boolean> {
  const kc = configs.get(sa);
  if (!kc) throw new Error(`no kubeconfig for ${sa}`);
  const review = await kc.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: attributes(verb, resource, where) } },
  });
  return review.status?.allowed === true;
}

beforeAll(async () => {
  namespace = await createTestNamespace('cascade-rbac');
  otherNamespace = await createTestNamespace('cascade-rbac-other');
  await applyManifests(adminKubeConfig(), [
    ...manifests('knative/rbac.yaml', namespace),
    ...manifests('knative/apiserversource-rbac.yaml', namespace),
  ]);
  for (const sa of [FN, JAN, SRC, MOD]) configs.set(sa, await serviceAccountKubeConfig(namespace, sa));
});

describe('the ServiceAccounts of knative/ are least privilege', () => {
  it('reads resources as the table means them', () => {
    expect(attributes('get', 'secrets', 'own')).toMatchObject({
      group: '',
      resource: 'secrets',
      subresource: undefined,
    });
    expect(attributes('get', 'pods/log', 'own')).toMatchObject({ group: '', resource: 'pods', subresource: 'log' });
    expect(attributes('get', 'batch/jobs', 'own')).toMatchObject({ group: 'batch', resource: 'jobs' });
    expect(attributes('update', `${CASCADE}/cascaderuns/status`, 'cluster')).toMatchObject({
      group: CASCADE,
      resource: 'cascaderuns',
      subresource: 'status',
      namespace: undefined,
    });
  });

  it.each(rows)('%s: %s %s in the %s namespace/scope → allowed %s', async (...row: Row) => {
    const [sa, verb, resource, where, expected] = row;
    expect(await allowed(sa, verb, resource, where)).toBe(expected);
  });
});

describe('real calls agree with the reviews', () => {
  it('the function lists Jobs in its namespace but not Secrets, nor Jobs elsewhere', async () => {
    const kc = configs.get(FN)!;
    await adminKubeConfig()
      .makeApiClient(BatchV1Api)
      .createNamespacedJob({
        namespace,
        body: {
          metadata: { name: 'listed' },
          spec: {
            suspend: true,
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.invalid/x:1' }] } },
          },
        },
      });
    const listed = await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace });
    expect(listed.items.map((j) => j.metadata?.name)).toEqual(['listed']);
    const denied = async (call: Promise<unknown>) =>
      apiStatus(
        await call.then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
    expect(await denied(kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace }))).toBe(403);
    expect(await denied(kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: otherNamespace }))).toBe(403);
    expect(
      await denied(kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: `${namespace}-x` } } })),
    ).toBe(403);
  });
});
