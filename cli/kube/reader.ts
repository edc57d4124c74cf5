// The reads of list, get and version: over the small HTTP client in rest.ts,
// or over client-node for a kubeconfig user that only it serves (an exec
// plugin, an auth-provider, a proxy). Neither path loads the other.
import { GROUP, VERSION, CASCADE_RUN_PLURAL } from '../../shared/api/group.ts';
import type { RunObject } from '../runs/run-object.ts';
import { clientNode } from './client.ts';
import { connect, type KubeFlags } from './connect.ts';
import { loadAccess, type Access } from './kubeconfig.ts';
import { getJson, watchJson } from './rest.ts';
import { retryTooManyRequests } from './retry.ts';
import { getRun, listRuns, type RunList } from './runs.ts';

/** What a watch of runs covers: a namespace (every one when undefined), a label selector, and where it starts. */
export interface WatchAt {
  namespace: string | undefined;
  labelSelector?: string;
  resourceVersion: string;
}

export interface Reader {
  namespace: string;
  /** The runs of `namespace`, or of every namespace when it is undefined, and the list's resourceVersion. */
  listRuns(namespace: string | undefined, labelSelector?: string): Promise<RunList>;
  /**
   * Calls `onEvent` for each change to those runs after `resourceVersion`,
   * until the API server ends the watch or `signal` aborts. Resolves with
   * the last resourceVersion seen, or undefined when it is too old (410 Gone).
   */
  watchRuns(
    at: WatchAt,
    onEvent: (type: string, run: RunObject) => void,
    signal: AbortSignal,
  ): Promise<string | undefined>;
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
    listRuns: (namespace, labelSelector) =>
      retryTooManyRequests(() => getJson<RunList>(access, runsPath(namespace), { labelSelector })),
    watchRuns: ({ namespace, labelSelector, resourceVersion }, onEvent, signal) =>
      watchJson(
        access,
        runsPath(namespace),
        { labelSelector, resourceVersion, allowWatchBookmarks: true },
        { onEvent, signal },
      ),
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
    watchRuns: async ({ namespace: ns, labelSelector, resourceVersion }, onEvent, signal) => {
      const { Watch } = await clientNode();
      let last: string | undefined = resourceVersion;
      await new Promise<void>((resolve, reject) => {
        const query = { labelSelector, resourceVersion, allowWatchBookmarks: true };
        new Watch(kc)
          .watch(
            runsPath(ns),
            query,
            (type, obj: RunObject & { code?: number }) => {
              if (type === 'ERROR') last = obj.code === 410 ? undefined : last;
              else last = obj.metadata.resourceVersion ?? last;
              if (type !== 'ERROR' && type !== 'BOOKMARK') onEvent(type, obj);
            },
            () => resolve(),
          )
          .then((c) => signal.addEventListener('abort', () => c.abort(), { once: true }), reject);
      });
      return last;
    },
    getRun: (ns, name) => getRun(kc, ns, name),
    serverVersion: async () => (await kc.makeApiClient(VersionApi).getCode()).gitVersion,
  };
}

/** A Reader for these flags: the HTTP client unless the kubeconfig's user needs client-node. */
export async function reader(flags: KubeFlags): Promise<Reader> {
  const access = loadAccess(flags);
  return access.needsClientNode ? clientNodeReader(flags) : restReader(access);
}
