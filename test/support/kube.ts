// The local tooling's Kubernetes helpers (local/kube.ts) bound to the test
// cluster the global set-up provides and to the lifetime of the current test.
import { afterAll, inject, onTestFinished } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  createNamespace,
  deleteNamespace,
  kubeConfigFromFile,
  serviceAccountKubeConfig as saKubeConfig,
} from '../../local/kube.ts';

export { apiStatus, sleep, waitFor, type WaitForOptions } from '../../local/kube.ts';

let privateCluster: string | undefined;

/**
 * Points every helper here (and so the harness) at another control plane than
 * the global set-up's: a test file's private cluster, for faults that must not
 * reach the other files. `undefined` points them back.
 */
export function useAdminKubeconfig(path: string | undefined): void {
  privateCluster = path;
}

/** Path of the admin kubeconfig: the private cluster's (useAdminKubeconfig), else the one the global set-up provided. */
export function adminKubeconfigPath(): string {
  if (privateCluster) return privateCluster;
  let provided: string | undefined;
  try {
    provided = inject('kubeconfig');
  } catch {
    provided = undefined;
  }
  const path = provided ?? process.env.KUBECONFIG ?? process.env.CASCADE_KUBECONFIG;
  if (!path)
    throw new Error(
      'no kubeconfig: run the tests with `vitest --project cluster` (its global set-up starts the cluster)',
    );
  return path;
}

/** A KubeConfig for the cluster admin (system:masters). */
export function adminKubeConfig(): KubeConfig {
  return kubeConfigFromFile(adminKubeconfigPath());
}

const pendingNamespaces = new Set<string>();

async function removeNamespace(name: string): Promise<void> {
  pendingNamespaces.delete(name);
  await deleteNamespace(adminKubeConfig(), name);
}

afterAll(() => Promise.all([...pendingNamespaces].map(removeNamespace)));

/**
 * A namespace with a unique name, its `default` ServiceAccount ready; deleted
 * after the current test (or, when called outside a test, after the file).
 */
export async function createTestNamespace(prefix = 'cascade-test'): Promise<string> {
  const name = await createNamespace(adminKubeConfig(), prefix);
  pendingNamespaces.add(name);
  try {
    onTestFinished(() => removeNamespace(name));
  } catch {
    // not inside a test: the file's afterAll deletes it
  }
  return name;
}

/** A KubeConfig acting as ServiceAccount `saName` of `namespace` (TokenRequest). */
export function serviceAccountKubeConfig(
  namespace: string,
  saName: string,
  options: { expirationSeconds?: number } = {},
): Promise<KubeConfig> {
  return saKubeConfig(adminKubeConfig(), namespace, saName, options);
}
