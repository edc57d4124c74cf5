// The light client's Connection (shared/kube/connection.ts) of a client-node
// KubeConfig: the local tools watch through the informer the function uses.
import type { KubeConfig } from '@kubernetes/client-node';
import { fromKubeconfig, type Connection } from '../shared/kube/connection.ts';

/** The current context's server and credentials: certificates, a token, or a token file. */
export function connectionOf(kc: KubeConfig): Connection {
  return fromKubeconfig(kc.exportConfig());
}
