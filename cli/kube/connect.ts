// kubectl's connection flags: --kubeconfig (else $KUBECONFIG, else
// ~/.kube/config), --context, and -n/--namespace (else the context's
// namespace, else `default`), read by shared/kube/kubeconfig.ts. Every call
// goes through shared/kube's client (rest.ts) and its informer.
import { loadKubeconfig, type KubeFlags } from '../../shared/kube/kubeconfig.ts';
import type { Connection } from '../../shared/kube/connection.ts';
import { restClient, type Rest } from '../../shared/kube/rest.ts';

export type { KubeFlags } from '../../shared/kube/kubeconfig.ts';

/** The API server a command talks to: its connection, one client over it, the namespace and the context's name. */
export interface Kube {
  conn: Connection;
  rest: Rest;
  namespace: string;
  context: string;
}

export function connect(flags: KubeFlags): Kube {
  const { conn, namespace, context } = loadKubeconfig(flags);
  return kubeOf(conn, namespace, context);
}

/** A Kube over a connection made elsewhere (the tests', the benches'). */
export function kubeOf(conn: Connection, namespace = 'default', context = ''): Kube {
  return { conn, rest: restClient(conn), namespace, context };
}

/** The API server's URL for these flags, to name it in an error; undefined when the kubeconfig cannot be read. */
export function serverOf(flags: KubeFlags): string | undefined {
  try {
    return loadKubeconfig(flags).conn.server;
  } catch {
    return undefined;
  }
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

/** kubectl's words for an API server that cannot be reached (a socket's error, or one with the socket's error as its cause). */
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
