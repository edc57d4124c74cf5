// Where the local control plane keeps its binaries, state and logs.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCacheDir } from '../build-script.ts';

export const clusterDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(clusterDir, '..', '..');
export const buildScript = join(clusterDir, 'build.sh');
export const stagesDir = join(clusterDir, 'stages');
export const auditPolicyFile = join(clusterDir, 'audit-policy.yaml');
export const egressSelectorFile = join(clusterDir, 'egress-selector.yaml');

export const versions = {
  kubernetes: process.env.CASCADE_K8S_VERSION ?? 'v1.34.4',
  etcd: process.env.CASCADE_ETCD_VERSION ?? 'v3.6.16',
  kwok: process.env.CASCADE_KWOK_VERSION ?? 'v0.8.0',
} as const;

/** The binary directory build.sh writes to (same rule as the script). */
export function defaultBinDir(): string {
  const { kubernetes, etcd, kwok } = versions;
  return join(buildCacheDir(), 'bin', `k8s-${kubernetes}-etcd-${etcd}-kwok-${kwok}`);
}

/** State dir: $CASCADE_CLUSTER_STATE or <repo>/.cascade/cluster. */
export function defaultStateDir(): string {
  return resolve(process.env.CASCADE_CLUSTER_STATE ?? join(repoRoot, '.cascade', 'cluster'));
}

/** Files inside one state dir. */
export function statePaths(stateDir: string) {
  return {
    root: stateDir,
    pki: join(stateDir, 'pki'),
    logs: join(stateDir, 'logs'),
    /** The kube-apiserver's audit log (audit-policy.yaml): one JSON line per request. */
    auditLog: join(stateDir, 'logs', 'audit.log'),
    etcdData: join(stateDir, 'etcd'),
    kubeconfigs: join(stateDir, 'kubeconfigs'),
    adminKubeconfig: join(stateDir, 'admin.kubeconfig'),
    pids: join(stateDir, 'pids.json'),
    info: join(stateDir, 'cluster.json'),
    kwokConfig: join(stateDir, 'kwok.yaml'),
  };
}

export type StatePaths = ReturnType<typeof statePaths>;
