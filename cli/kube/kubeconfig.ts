// The kubeconfig read without @kubernetes/client-node, for the commands that
// only read (list, get, version): loading client-node takes half a second.
// It follows kubectl's rules: --kubeconfig, else each file of $KUBECONFIG
// (the first to set a name or current-context wins), else ~/.kube/config,
// else no file at all, which means http://localhost:8080.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parseBlockYaml } from './block-yaml.ts';
import type { KubeFlags } from './connect.ts';

/** What a request to the API server needs: where, as whom, and what TLS trusts. */
export interface Access {
  server: string;
  namespace: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  basic?: string;
  insecure: boolean;
  servername?: string;
  /** Why this user needs client-node (an exec plugin, an auth-provider, a proxy), if it does. */
  needsClientNode?: string;
}

type Entry = Record<string, unknown>;
interface Named {
  name?: string;
  [key: string]: unknown;
}
/** One kubeconfig file, as parsed, and the folder its relative paths start from. */
export interface KubeconfigFile {
  dir: string;
  doc: {
    clusters?: Named[];
    users?: Named[];
    contexts?: Named[];
    'current-context'?: string;
  };
}

const NO_KUBECONFIG: Access = { server: 'http://localhost:8080', namespace: 'default', insecure: false };

/** The first entry named `name` across the files, with the folder of the file it came from. */
function find(files: KubeconfigFile[], list: 'clusters' | 'users' | 'contexts', key: string, name: string) {
  for (const f of files) {
    const hit = f.doc[list]?.find((e) => e.name === name);
    if (hit) return { entry: (hit[key] ?? {}) as Entry, dir: f.dir };
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `X-data` (base64) or the file `X` (relative to its kubeconfig's folder). */
function bytes(e: Entry, field: string, dir: string): Buffer | undefined {
  const data = str(e[`${field}-data`]);
  if (data) return Buffer.from(data, 'base64');
  const path = str(e[field]);
  return path ? readFileSync(isAbsolute(path) ? path : join(dir, path)) : undefined;
}

function userAccess(user: Entry, dir: string): Partial<Access> {
  const needs = user.exec ? 'an exec plugin' : user['auth-provider'] ? 'an auth-provider' : undefined;
  const tokenFile = str(user.tokenFile);
  const token =
    str(user.token) ??
    (tokenFile ? readFileSync(isAbsolute(tokenFile) ? tokenFile : join(dir, tokenFile), 'utf8').trim() : undefined);
  const username = str(user.username);
  return {
    cert: bytes(user, 'client-certificate', dir),
    key: bytes(user, 'client-key', dir),
    token,
    basic: username ? Buffer.from(`${username}:${str(user.password) ?? ''}`).toString('base64') : undefined,
    needsClientNode: needs,
  };
}

/** The context named by --context, else by the first current-context; an unknown --context is an error. */
function contextOf(files: KubeconfigFile[], flags: KubeFlags) {
  const name = flags.context ?? files.map((f) => str(f.doc['current-context'])).find(Boolean);
  const context = name ? find(files, 'contexts', 'context', name) : undefined;
  if (flags.context && !context) throw new Error(`context "${flags.context}" does not exist in the kubeconfig`);
  return context?.entry ?? {};
}

function clusterAccess(c: Entry, dir: string): Partial<Access> {
  return {
    ca: bytes(c, 'certificate-authority', dir),
    insecure: c['insecure-skip-tls-verify'] === true,
    servername: str(c['tls-server-name']),
    ...(str(c['proxy-url']) ? { needsClientNode: 'a proxy-url' } : {}),
  };
}

/** The access that the files and the flags give, as kubectl resolves them. */
export function resolveAccess(files: KubeconfigFile[], flags: KubeFlags): Access {
  if (files.length === 0) return { ...NO_KUBECONFIG, namespace: flags.namespace ?? 'default' };
  const context = contextOf(files, flags);
  const clusterName = str(context.cluster);
  const cluster = clusterName ? find(files, 'clusters', 'cluster', clusterName) : undefined;
  const server = str(cluster?.entry.server);
  if (!cluster || !server) throw new Error('no cluster in the kubeconfig: give one with --kubeconfig or $KUBECONFIG');
  const userName = str(context.user);
  const user = userName ? find(files, 'users', 'user', userName) : undefined;
  return {
    server: server.replace(/\/+$/, ''),
    namespace: flags.namespace ?? str(context.namespace) ?? 'default',
    insecure: false,
    ...(user ? userAccess(user.entry, user.dir) : {}),
    ...clusterAccess(cluster.entry, cluster.dir),
  };
}

/** The kubeconfig files kubectl would read, in order; those that do not exist are left out as kubectl does. */
export function kubeconfigPaths(flags: KubeFlags, env: Record<string, string | undefined>): string[] {
  if (flags.kubeconfig) return [flags.kubeconfig];
  const fromEnv = env.KUBECONFIG?.split(delimiter).filter(Boolean) ?? [];
  return fromEnv.length > 0 ? fromEnv : [join(homedir(), '.kube', 'config')];
}

function readKubeconfig(path: string, mustExist: boolean): KubeconfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!mustExist && (error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  return { dir: dirname(path), doc: (parseYaml(text) ?? {}) as KubeconfigFile['doc'] };
}

/** js-yaml, loaded only for a kubeconfig past the plain block YAML that parseBlockYaml reads. */
export function parseYaml(text: string): unknown {
  const plain = parseBlockYaml(text);
  if (plain !== undefined) return plain;
  const { load } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
  return load(text);
}

/** The access for these flags, read from the kubeconfig files on disk. */
export function loadAccess(flags: KubeFlags, env: Record<string, string | undefined> = process.env): Access {
  const files = kubeconfigPaths(flags, env)
    .map((p) => readKubeconfig(p, Boolean(flags.kubeconfig)))
    .filter((f): f is KubeconfigFile => f !== undefined);
  return resolveAccess(files, flags);
}
