// A Store for a namespace, from the default connection (KUBECONFIG,
// ~/.kube/config or in-cluster) or from a given kubeconfig file.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultConnection, fromKubeconfig, type Connection } from './connection.ts';
import { restClient, type Rest } from './rest.ts';
import { restStore } from './rest-store.ts';
import type { RetryPolicy } from './api-retry.ts';
import type { Store } from './store.ts';

/** The connection a kubeconfig file describes, its relative paths read from beside it. */
export function kubeconfigConnection(file: string): Connection {
  return fromKubeconfig(readFileSync(file, 'utf8'), dirname(file));
}

export function connectStore(namespace: string, policy: RetryPolicy, kubeconfigFile?: string): Store {
  const conn = kubeconfigFile ? kubeconfigConnection(kubeconfigFile) : defaultConnection();
  return restStore(restClient(conn), namespace, policy);
}

/**
 * connectStore from the default connection, with the API server's connection
 * opened now. It sends one GET /version, which every client may call and which
 * is answered at once; its answer is not used. So the TLS handshake is done
 * when the first call comes, and the connection is free. GET /readyz would not do:
 * it runs the API server's checks and holds the connection 15-20 ms, so a first
 * call made meanwhile opens a second one. The connection is given too, for
 * the function's watch of its Jobs, and the client for its Lease.
 */
export function connectStoreOpened(
  namespace: string,
  policy: RetryPolicy,
): { store: Store; conn: Connection; rest: Rest } {
  const conn = defaultConnection();
  const rest = restClient(conn);
  rest('GET', '/version', { text: true }).catch(() => undefined);
  return { store: restStore(rest, namespace, policy), conn, rest };
}
