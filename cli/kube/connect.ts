// kubectl's connection flags: --kubeconfig (else $KUBECONFIG, else
// ~/.kube/config, as client-node's loadFromDefault), --context, and
// -n/--namespace (else the context's namespace, else `default`).
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client.ts';

export interface KubeFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

export interface Connection {
  kc: KubeConfig;
  namespace: string;
}

export async function connect(flags: KubeFlags): Promise<Connection> {
  const { KubeConfig } = await clientNode();
  const kc = new KubeConfig();
  if (flags.kubeconfig) kc.loadFromFile(flags.kubeconfig);
  else kc.loadFromDefault();
  if (flags.context) {
    if (!kc.getContextObject(flags.context))
      throw new Error(`context "${flags.context}" does not exist in the kubeconfig`);
    kc.setCurrentContext(flags.context);
  }
  if (!kc.getCurrentCluster())
    throw new Error('no cluster in the kubeconfig: give one with --kubeconfig or $KUBECONFIG');
  // kubectl talks plain HTTP to an http:// server (without any kubeconfig, to
  // localhost:8080); client-node only does with skipTLSVerify, which TLS alone reads.
  kc.clusters = kc.clusters.map((c) => (c.server.startsWith('http://') ? { ...c, skipTLSVerify: true } : c));
  const namespace = flags.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return { kc, namespace };
}

/** host:port of the API server's URL, as kubectl names it (the scheme's port when none is given). */
export function serverHost(server: string | undefined): string | undefined {
  if (!server) return undefined;
  try {
    const url = new URL(server);
    return url.port ? url.host : `${url.hostname}:${url.protocol === 'http:' ? 80 : 443}`;
  } catch {
    return undefined;
  }
}

/** kubectl's words for an API server that cannot be reached (undici's fetch fails with the socket's error as its cause). */
function unreachable(
  e: { code?: unknown; cause?: { code?: unknown; address?: unknown; port?: unknown } },
  server: string | undefined,
): string | undefined {
  const code = e.code ?? e.cause?.code;
  const host =
    serverHost(server) ?? (e.cause?.address ? `${String(e.cause.address)}:${String(e.cause.port)}` : undefined);
  if (!host) return undefined;
  if (code === 'ECONNREFUSED')
    return `The connection to the server ${host} was refused - did you specify the right host or port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Unable to connect to the server: dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`;
  return undefined;
}

/**
 * kubectl's way of saying what went wrong: `Error from server (NotFound): ...`
 * for what the API server refused, `The connection to the server ... was
 * refused ...` for one that cannot be reached.
 */
export function describeError(error: unknown, server?: string): string {
  const e = error as { code?: unknown; body?: unknown; message?: unknown; cause?: { code?: unknown } };
  const down = e && typeof e === 'object' ? unreachable(e, server) : undefined;
  if (down) return down;
  if (typeof e?.code === 'number' && e.body !== undefined) {
    let status: { reason?: string; message?: string } = {};
    try {
      status = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as typeof status;
    } catch {
      /* not a Status */
    }
    return `Error from server (${status.reason ?? e.code}): ${status.message ?? String(e.body)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
