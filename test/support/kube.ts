// Helpers for tests against the local control plane (see test/cluster/).
import { randomBytes } from 'node:crypto';
import { afterAll, inject, onTestFinished } from 'vitest';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { pollUntil } from '../cluster/poll.ts';

export { sleep } from '../cluster/poll.ts';

/** Path of the admin kubeconfig the global set-up provided. */
export function adminKubeconfigPath(): string {
  let provided: string | undefined;
  try {
    provided = inject('kubeconfig');
  } catch {
    provided = undefined;
  }
  const path = provided ?? process.env.KUBECONFIG ?? process.env.CASCADE_KUBECONFIG;
  if (!path) throw new Error('no kubeconfig: run the tests with `vitest --project cluster` (its global set-up starts the cluster)');
  return path;
}

/** A KubeConfig for the cluster admin (system:masters). */
export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfigPath());
  return kc;
}

/** HTTP status of a failed client-node call (ApiException.code), if any. */
export function apiStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
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

const pendingNamespaces = new Set<string>();

async function deleteNamespace(name: string): Promise<void> {
  pendingNamespaces.delete(name);
  try {
    await adminKubeConfig().makeApiClient(CoreV1Api).deleteNamespace({ name, propagationPolicy: 'Background' });
  } catch (error) {
    if (apiStatus(error) !== 404) throw error;
  }
}

/** Deletes every namespace createTestNamespace made that is not deleted yet. */
export async function deleteTestNamespaces(): Promise<void> {
  await Promise.all([...pendingNamespaces].map(deleteNamespace));
}

try {
  afterAll(deleteTestNamespaces);
} catch {
  // imported outside a test file's collection: callers clean up themselves
}

/**
 * Creates a namespace with a unique name, waits until its `default`
 * ServiceAccount exists (pods need it) and deletes it after the current test
 * (or, when called outside a test, after the file).
 */
export async function createTestNamespace(prefix = 'cascade-test'): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({
    body: { metadata: { name, labels: { 'cascade.cascade.net/test': 'true' } } },
  });
  pendingNamespaces.add(name);
  try {
    onTestFinished(() => deleteNamespace(name));
  } catch {
    // not inside a test: the file's afterAll deletes it
  }
  await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    timeoutMs: 30_000,
    message: `ServiceAccount default in ${name}`,
  });
  return name;
}

/**
 * A KubeConfig that authenticates as ServiceAccount `saName` in `namespace`
 * with a token from the TokenRequest API (same server and CA as the admin).
 */
export async function serviceAccountKubeConfig(
  namespace: string,
  saName: string,
  options: { expirationSeconds?: number } = {},
): Promise<KubeConfig> {
  const admin = adminKubeConfig();
  const response = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
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
    clusters: [{ name: cluster.name, server: cluster.server, caData: cluster.caData, caFile: cluster.caFile, skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return kc;
}
