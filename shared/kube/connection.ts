// Where the Kubernetes API is and how to authenticate: from the kubeconfig
// (kubeconfig.ts: $KUBECONFIG, else ~/.kube/config), else the in-cluster
// ServiceAccount, as client-go looks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseKubeconfig, readKubeconfigs, resolveKubeconfig, type Connection } from './kubeconfig.ts';
import { fileToken } from './token-file.ts';

export type { Connection } from './kubeconfig.ts';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The connection one kubeconfig document describes, for its current context; relative paths start at `base`. */
export function fromKubeconfig(text: string, base = '.'): Connection {
  return resolveKubeconfig([{ dir: base, doc: parseKubeconfig(text) }], {}).conn;
}

export function inCluster(env: NodeJS.ProcessEnv): Connection {
  const host = env.KUBERNETES_SERVICE_HOST;
  if (!host) throw new Error('no KUBECONFIG, no ~/.kube/config, and not in a cluster (KUBERNETES_SERVICE_HOST unset)');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`,
    ca: readFileSync(join(SA_DIR, 'ca.crt')),
    insecure: false,
    token: fileToken(join(SA_DIR, 'token')),
  };
}

/** The kubeconfig's connection when there is a kubeconfig file, else the in-cluster one. */
export function defaultConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  const files = readKubeconfigs({}, env);
  return files.length > 0 ? resolveKubeconfig(files, {}).conn : inCluster(env);
}
