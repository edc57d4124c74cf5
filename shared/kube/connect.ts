// A Store for a namespace, from the default connection (KUBECONFIG,
// ~/.kube/config or in-cluster) or from a given kubeconfig file.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultConnection, fromKubeconfig, type Connection } from './connection.ts';
import { restClient } from './rest.ts';
import { restStore } from './rest-store.ts';
import type { RetryPolicy } from './api-retry.ts';
import type { Store } from './store.ts';

export function connectStore(namespace: string, policy: RetryPolicy, kubeconfigFile?: string): Store {
  const conn: Connection = kubeconfigFile
    ? fromKubeconfig(readFileSync(kubeconfigFile, 'utf8'), dirname(kubeconfigFile))
    : defaultConnection();
  return restStore(restClient(conn), namespace, policy);
}

/**
 * connectStore from the default connection, with the API server's
 * connection opened now: one GET /version (open to every client, answered
 * at once; its answer is not used), so that the TLS handshake is done when
 * the first call comes, and the connection free: /readyz, which runs the API
 * server's checks, held it 15-20 ms, and a first call made meanwhile opened
 * a second one.
 */
export function connectStoreOpened(namespace: string, policy: RetryPolicy): Store {
  const rest = restClient(defaultConnection());
  rest('GET', '/version', { text: true }).catch(() => undefined);
  return restStore(rest, namespace, policy);
}
