// Where the Kubernetes API is and how to authenticate, from $KUBECONFIG (its
// current context), ~/.kube/config, or the in-cluster ServiceAccount, in that
// order, as client-go and @kubernetes/client-node look. Only what Cascade's
// Store needs: certificate authority, client certificate, bearer token (or
// token file, read again as it rotates), insecure-skip-tls-verify.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';

export interface Connection {
  server: string;
  ca?: Buffer | undefined;
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  insecure: boolean;
  /** The bearer token now (token files are read again every minute). */
  token(): string | undefined;
}

interface Named<T> {
  name: string;
  [k: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}
interface KubeconfigDoc {
  'current-context'?: string;
  clusters?: Named<Record<string, string | boolean>>[];
  users?: Named<Record<string, string>>[];
  contexts?: Named<{ cluster?: string; user?: string }>[];
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function fileToken(path: string): () => string {
  let value = '';
  let readAt = 0;
  return () => {
    if (Date.now() - readAt > 60_000) {
      value = readFileSync(path, 'utf8').trim();
      readAt = Date.now();
    }
    return value;
  };
}

function bytes(data: string | undefined, file: string | undefined, base: string): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (file) return readFileSync(file.startsWith('/') ? file : join(base, file));
  return undefined;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function named<T>(
  list: Named<T>[] | undefined,
  name: string | undefined,
  key: 'cluster' | 'user' | 'context',
): T | undefined {
  return list?.find((item) => item.name === name)?.[key];
}

function current(doc: KubeconfigDoc) {
  const context = named(doc.contexts, doc['current-context'], 'context') ?? doc.contexts?.[0]?.context;
  const cluster = named(doc.clusters, context?.cluster, 'cluster');
  const user = named(doc.users, context?.user, 'user') ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig: no server for context "${doc['current-context'] ?? ''}"`);
  return { cluster, user };
}

function tokenOf(user: Record<string, string>): () => string | undefined {
  const file = str(user.tokenFile);
  const token = str(user.token);
  return file ? fileToken(file) : () => token;
}

/**
 * A kubeconfig's document. JSON is YAML, and kubeconfigs written by programs
 * (client libraries' exportConfig, `kubectl config view -o json`) often are
 * JSON: those are read with JSON.parse, a YAML parse of one costing 5-10 ms of
 * a cold process. Anything else, or JSON that does not parse, goes to the
 * YAML parser, whose errors are the ones to show.
 */
export function kubeconfigDocument(text: string): KubeconfigDoc {
  if (text.trimStart().startsWith('{')) {
    try {
      return (JSON.parse(text) ?? {}) as KubeconfigDoc;
    } catch {
      // not JSON after all: YAML's flow mappings start with "{" too
    }
  }
  return (load(text) ?? {}) as KubeconfigDoc;
}

/** The connection a kubeconfig document describes, for its current context. */
export function fromKubeconfig(text: string, base = '.'): Connection {
  const { cluster, user } = current(kubeconfigDocument(text));
  return {
    server: String(cluster.server).replace(/\/+$/, ''),
    ca: bytes(str(cluster['certificate-authority-data']), str(cluster['certificate-authority']), base),
    cert: bytes(str(user['client-certificate-data']), str(user['client-certificate']), base),
    key: bytes(str(user['client-key-data']), str(user['client-key']), base),
    insecure: cluster['insecure-skip-tls-verify'] === true,
    token: tokenOf(user),
  };
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

export function defaultConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  const path = env.KUBECONFIG?.split(':').find((p) => p && existsSync(p)) ?? join(homedir(), '.kube', 'config');
  if (existsSync(path)) return fromKubeconfig(readFileSync(path, 'utf8'), join(path, '..'));
  return inCluster(env);
}
