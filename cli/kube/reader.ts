// The reads of list, get and version: over the small HTTP client in rest.ts,
// or over client-node for a kubeconfig user that only it serves (an exec
// plugin, an auth-provider, a proxy). Neither path loads the other.
import { GROUP, VERSION, CASCADE_RUN_PLURAL } from '../../shared/api/group.ts';
import type { RunObject } from '../runs/run-object.ts';
import { clientNode } from './client.ts';
import { connect, type KubeFlags } from './connect.ts';
import { loadAccess, type Access } from './kubeconfig.ts';
import { getJson } from './rest.ts';
import { retryTooManyRequests } from './retry.ts';
import { getRun, listRuns } from './runs.ts';

export interface Reader {
  namespace: string;
  /** The runs of `namespace`, or of every namespace when it is undefined. */
  listRuns(namespace: string | undefined, labelSelector?: string): Promise<RunObject[]>;
  getRun(namespace: string, name: string): Promise<RunObject>;
  /** The API server's gitVersion. */
  serverVersion(): Promise<string>;
}

const base = `/apis/${GROUP}/${VERSION}`;
export const runsPath = (namespace: string | undefined) =>
  namespace === undefined ? `${base}/${CASCADE_RUN_PLURAL}` : `${base}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`;

function restReader(access: Access): Reader {
  return {
    namespace: access.namespace,
    listRuns: async (namespace, labelSelector) =>
      (
        await retryTooManyRequests(() =>
          getJson<{ items: RunObject[] }>(access, runsPath(namespace), { labelSelector }),
        )
      ).items,
    getRun: (namespace, name) =>
      retryTooManyRequests(() => getJson<RunObject>(access, `${runsPath(namespace)}/${encodeURIComponent(name)}`)),
    serverVersion: async () => (await getJson<{ gitVersion: string }>(access, '/version')).gitVersion,
  };
}

async function clientNodeReader(flags: KubeFlags): Promise<Reader> {
  const { kc, namespace } = await connect(flags);
  const { VersionApi } = await clientNode();
  return {
    namespace,
    listRuns: (ns, selector) => listRuns(kc, ns, selector),
    getRun: (ns, name) => getRun(kc, ns, name),
    serverVersion: async () => (await kc.makeApiClient(VersionApi).getCode()).gitVersion,
  };
}

/** A Reader for these flags: the HTTP client unless the kubeconfig's user needs client-node. */
export async function reader(flags: KubeFlags): Promise<Reader> {
  const access = loadAccess(flags);
  return access.needsClientNode ? clientNodeReader(flags) : restReader(access);
}
