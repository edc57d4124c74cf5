// The function's own identity for the tests and the benchmarks. The
// ServiceAccount, Role and RoleBinding of knative/rbac.yaml are applied to a
// test namespace, and a kubeconfig file holds a token of that ServiceAccount.
// So tests run the function with exactly the permissions it is deployed with.
// The modules' ServiceAccount comes with it, as with knative/: the Jobs name it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { MODULE_SERVICE_ACCOUNT } from '../shared/core/job-manifest.ts';
import { repoRoot } from './cluster/paths.ts';
import { apiStatus, objectApi, serviceAccountKubeConfig } from './kube.ts';
import { tempDir } from './temp-dir.ts';

export function manifests(file: string, namespace: string, kinds?: string[]): KubernetesObject[] {
  const docs = loadAll(readFileSync(join(repoRoot, file), 'utf8')) as KubernetesObject[];
  return docs
    .filter((d) => d && (!kinds || kinds.includes(d.kind ?? '')))
    .map((d) => {
      const copy = structuredClone(d) as KubernetesObject & { subjects?: { namespace?: string }[] };
      copy.metadata = { ...copy.metadata, namespace };
      copy.subjects?.forEach((s) => {
        s.namespace = namespace;
      });
      return copy;
    });
}

/** Creates the objects; with `existingOk`, one that is already there counts as created. */
export async function applyManifests(
  admin: KubeConfig,
  objects: KubernetesObject[],
  existingOk = false,
): Promise<void> {
  const api = objectApi(admin);
  for (const obj of objects) {
    try {
      await api.create(obj);
    } catch (error) {
      if (!existingOk || apiStatus(error) !== 409) throw error;
    }
  }
}

/**
 * Applies the documents of `file` (knative/rbac.yaml unless told) named `sa`
 * (its ServiceAccount, Role and RoleBinding) to `namespace`, with the
 * modules' ServiceAccount when the file has it; returns a kubeconfig acting
 * as `sa`. Without the modules' ServiceAccount the ServiceAccount admission
 * plugin refuses every pod of the Jobs that Cascade creates.
 */
export async function serviceAccountIdentity(
  admin: KubeConfig,
  namespace: string,
  sa: string,
  file = 'knative/rbac.yaml',
): Promise<KubeConfig> {
  await applyManifests(
    admin,
    manifests(file, namespace).filter(
      (d) => d.metadata?.name === sa || (d.kind === 'ServiceAccount' && d.metadata?.name === MODULE_SERVICE_ACCOUNT),
    ),
    true,
  );
  return serviceAccountKubeConfig(admin, namespace, sa);
}

/** serviceAccountIdentity, written to a kubeconfig file (mode 600); returns its path. */
export async function serviceAccountKubeconfigFile(
  admin: KubeConfig,
  namespace: string,
  sa: string,
  file?: string,
): Promise<string> {
  const kc = await serviceAccountIdentity(admin, namespace, sa, file);
  const path = join(tempDir('cascade-kc-'), 'kubeconfig');
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  return path;
}

/** The function's identity: see serviceAccountKubeconfigFile. */
export function functionKubeconfig(admin: KubeConfig, namespace: string): Promise<string> {
  return serviceAccountKubeconfigFile(admin, namespace, 'cascade-function');
}

/** The ApiServerSource adapter's identity (knative/apiserversource-rbac.yaml): it only watches Jobs. */
export function apiServerSourceIdentity(admin: KubeConfig, namespace: string): Promise<KubeConfig> {
  return serviceAccountIdentity(admin, namespace, 'cascade-apiserversource', 'knative/apiserversource-rbac.yaml');
}

/** The janitor's identity (knative/rbac.yaml), as a kubeconfig file. */
export function janitorKubeconfig(admin: KubeConfig, namespace: string): Promise<string> {
  return serviceAccountKubeconfigFile(admin, namespace, 'cascade-janitor');
}

/** The username a ServiceAccount authenticates as. */
export function serviceAccountUser(namespace: string, sa: string): string {
  return `system:serviceaccount:${namespace}:${sa}`;
}
