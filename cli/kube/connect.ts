// kubectl's connection flags: --kubeconfig (else $KUBECONFIG, else
// ~/.kube/config, as client-node's loadFromDefault), --context, and
// -n/--namespace (else the context's namespace, else `default`).
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

export interface Connection {
  kc: KubeConfig;
  namespace: string;
}

export function connect(flags: KubeFlags): Connection {
  const kc = new KubeConfig();
  if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
  else kc.loadFromDefault();
  if (flags.context) {
    if (!kc.getContextObject(flags.context)) throw new Error(`context "${flags.context}" does not exist in the kubeconfig`);
    kc.setCurrentContext(flags.context);
  }
  if (!kc.getCurrentCluster()) throw new Error('no cluster in the kubeconfig: give one with --kubeconfig or $KUBECONFIG');
  const namespace = flags.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return { kc, namespace };
}

/** kubectl's way of saying what the API server refused: `Error from server (NotFound): ...`. */
export function describeError(error: unknown): string {
  const e = error as { code?: unknown; body?: unknown; message?: unknown };
  if (typeof e?.code === 'number' && e.body !== undefined) {
    let status: { reason?: string; message?: string } = {};
    try {
      status = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as typeof status;
    } catch { /* not a Status */ }
    return `Error from server (${status.reason ?? e.code}): ${status.message ?? String(e.body)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
