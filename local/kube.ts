// @kubernetes/client-node helpers for the local tooling (the bundled control
// plane, the benchmarks) and the tests: a kubeconfig from a file, the status of
// a failed call, polling for a state, namespaces, ServiceAccount identities.
// Nothing here knows about vitest: test/support/kube.ts binds these to the
// test cluster and to the test's lifetime.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { pollUntil } from './cluster/poll.ts';
import { apiClient, apiStatus } from './kube-client.ts';

export { apiStatus } from './kube-client.ts';

export { sleep } from './cluster/poll.ts';

export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  message?: string;
}

/**
 * Polls `predicate` until it returns a value other than undefined/false and
 * returns it; errors it throws count as "not yet".
 */
export function waitFor<T>(
  predicate: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitForOptions = {},
): Promise<T> {
  return pollUntil(predicate, {
    timeoutMs: options.timeoutMs ?? 30_000,
    intervalMs: options.intervalMs ?? 200,
    what: options.message ?? 'condition',
  });
}

/**
 * Creates a namespace with a unique name and waits until its `default`
 * ServiceAccount exists (pods need it).
 */
export async function createNamespace(admin: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const core = apiClient(admin, CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { 'cascade.cascade.net/test': 'true' } } } });
  await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    timeoutMs: 30_000,
    message: `ServiceAccount default in ${name}`,
  });
  return name;
}

/**
 * No janitor runs in a namespace of the local stack to release the
 * CascadeAutoOperators' finalizer (shutdown.cascade.cascade.net/finalizer),
 * which would keep the namespace Terminating: drop every finalizer of them.
 */
async function releaseOperators(admin: KubeConfig, namespace: string): Promise<void> {
  const custom = apiClient(admin, CustomObjectsApi);
  const at = { group: 'cascade.cascade.net', version: 'v1alpha1', namespace, plural: 'cascadeautooperators' };
  type Listed = { metadata?: { name?: string; finalizers?: string[] } }[];
  // A CRD just established answers 429 "storage is (re)initializing" for a moment: waitFor tries again.
  const items = await waitFor(
    () =>
      custom.listNamespacedCustomObject(at).then(
        (list) => (list as { items: Listed }).items,
        (error: unknown) => {
          if (apiStatus(error) === 404) return [] as Listed; // no CRD, or no namespace
          throw error;
        },
      ),
    { message: `CascadeAutoOperators of ${namespace} listed` },
  );
  await Promise.all(
    items
      .filter((op) => op.metadata?.finalizers?.length)
      .map(async (op) => {
        try {
          await custom.patchNamespacedCustomObject({
            ...at,
            name: op.metadata!.name!,
            body: [{ op: 'remove', path: '/metadata/finalizers' }],
          });
        } catch (error) {
          if (apiStatus(error) !== 404 && apiStatus(error) !== 422) throw error;
        }
      }),
  );
}

/** Deletes a namespace (in the background), its CascadeAutoOperators released first; one already gone is fine. */
export async function deleteNamespace(admin: KubeConfig, name: string): Promise<void> {
  await releaseOperators(admin, name);
  try {
    await apiClient(admin, CoreV1Api).deleteNamespace({ name, propagationPolicy: 'Background' });
  } catch (error) {
    if (apiStatus(error) !== 404) throw error;
  }
}

/**
 * A KubeConfig that authenticates as ServiceAccount `saName` in `namespace`
 * with a token from the TokenRequest API (same server and CA as the admin).
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  namespace: string,
  saName: string,
  options: { expirationSeconds?: number } = {},
): Promise<KubeConfig> {
  const response = await apiClient(admin, CoreV1Api).createNamespacedServiceAccountToken({
    name: saName,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } },
  });
  const token = response.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${saName} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('admin kubeconfig has no current cluster');
  const user = `system:serviceaccount:${namespace}:${saName}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster.name,
        server: cluster.server,
        caData: cluster.caData,
        caFile: cluster.caFile,
        skipTLSVerify: false,
      },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return kc;
}
