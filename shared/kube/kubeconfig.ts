// The kubeconfig read as kubectl reads it: --kubeconfig, else each file of
// $KUBECONFIG (the first to set a name or current-context wins), else
// ~/.kube/config, else no file at all, which means http://localhost:8080.
// --context and -n choose the context and the namespace. A user authenticates
// with certificates, a token or token file, a username and password, or an
// exec plugin (exec-credential.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parseBlockYaml } from './block-yaml.ts';
import { execToken, type ExecConfig } from './exec-credential.ts';
import { fileToken } from './token-file.ts';

/** How to reach one API server, and who to be there. */
export interface Connection {
  server: string;
  ca?: Buffer | undefined;
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  insecure: boolean;
  /** The name TLS checks the server's certificate for, when not the server's host. */
  servername?: string | undefined;
  /** The bearer token now (token files are read again every minute, exec plugins run again when it expires). */
  token(): string | undefined;
  /** Basic authentication's `user:password` in base64, used when there is no token. */
  basic?: string | undefined;
}

/** kubectl's connection flags. */
export interface KubeFlags {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
}

/** What the kubeconfig gives: the connection, the namespace, and the context's name. */
export interface Kubeconfig {
  conn: Connection;
  namespace: string;
  context: string;
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

/** The first entry named `name` across the files, with the folder of the file it came from. */
function find(files: KubeconfigFile[], list: 'clusters' | 'users' | 'contexts', key: string, name: string) {
  for (const f of files) {
    const hit = f.doc[list]?.find((e) => e.name === name);
    if (hit) return { entry: (hit[key] ?? {}) as Entry, dir: f.dir };
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const inDir = (path: string, dir: string) => (isAbsolute(path) ? path : join(dir, path));

/** `X-data` (base64) or the file `X` (relative to its kubeconfig's folder). */
function bytes(e: Entry, field: string, dir: string): Buffer | undefined {
  const data = str(e[`${field}-data`]);
  if (data) return Buffer.from(data, 'base64');
  const path = str(e[field]);
  return path ? readFileSync(inDir(path, dir)) : undefined;
}

/** The user's bearer token now: its token, its token file (read again as it rotates), or its exec plugin's. */
function tokenOf(user: Entry, dir: string): () => string | undefined {
  if (user['auth-provider'])
    throw new Error("the kubeconfig's user has an auth-provider, which is not supported: give it an exec plugin");
  const file = str(user.tokenFile);
  const token = str(user.token);
  if (token) return () => token;
  if (file) return fileToken(inDir(file, dir));
  if (user.exec) return execToken(user.exec as ExecConfig);
  return () => undefined;
}

function userPart(user: Entry, dir: string): Omit<Connection, 'server' | 'insecure'> {
  const username = str(user.username);
  return {
    cert: bytes(user, 'client-certificate', dir),
    key: bytes(user, 'client-key', dir),
    token: tokenOf(user, dir),
    basic: username ? Buffer.from(`${username}:${str(user.password) ?? ''}`).toString('base64') : undefined,
  };
}

function clusterPart(c: Entry, dir: string): Pick<Connection, 'ca' | 'insecure' | 'servername'> {
  if (str(c['proxy-url'])) throw new Error("the kubeconfig's cluster has a proxy-url, which is not supported");
  return {
    ca: bytes(c, 'certificate-authority', dir),
    insecure: c['insecure-skip-tls-verify'] === true,
    servername: str(c['tls-server-name']),
  };
}

/** The context named by --context, else by the first current-context; an unknown --context is an error. */
function contextOf(files: KubeconfigFile[], flags: KubeFlags): { name: string; entry: Entry } {
  const name = flags.context ?? files.map((f) => str(f.doc['current-context'])).find(Boolean) ?? '';
  const context = name ? find(files, 'contexts', 'context', name) : undefined;
  if (flags.context && !context) throw new Error(`context "${flags.context}" does not exist in the kubeconfig`);
  return { name, entry: context?.entry ?? {} };
}

const NO_KUBECONFIG: Connection = { server: 'http://localhost:8080', insecure: false, token: () => undefined };

/** The connection, namespace and context that the files and the flags give, as kubectl resolves them. */
export function resolveKubeconfig(files: KubeconfigFile[], flags: KubeFlags): Kubeconfig {
  if (files.length === 0) return { conn: NO_KUBECONFIG, namespace: flags.namespace ?? 'default', context: '' };
  const context = contextOf(files, flags);
  const clusterName = str(context.entry.cluster);
  const cluster = clusterName ? find(files, 'clusters', 'cluster', clusterName) : undefined;
  const server = str(cluster?.entry.server);
  if (!cluster || !server) throw new Error('no cluster in the kubeconfig: give one with --kubeconfig or $KUBECONFIG');
  const userName = str(context.entry.user);
  const user = userName ? find(files, 'users', 'user', userName) : undefined;
  const conn: Connection = {
    server: server.replace(/\/+$/, ''),
    ...(user ? userPart(user.entry, user.dir) : { token: () => undefined }),
    ...clusterPart(cluster.entry, cluster.dir),
  };
  return { conn, namespace: flags.namespace ?? str(context.entry.namespace) ?? 'default', context: context.name };
}

/** The kubeconfig files kubectl would read, in order, whether they exist or not. */
export function kubeconfigPaths(flags: KubeFlags, env: Record<string, string | undefined>): string[] {
  if (flags.kubeconfig) return [flags.kubeconfig];
  const fromEnv = env.KUBECONFIG?.split(delimiter).filter(Boolean) ?? [];
  return fromEnv.length > 0 ? fromEnv : [join(homedir(), '.kube', 'config')];
}

/**
 * A kubeconfig's document. JSON, as programs often write kubeconfigs, is read
 * with JSON.parse, and plain block YAML with parseBlockYaml: js-yaml's load
 * and first parse cost a cold process about 40 ms. Anything else goes to
 * js-yaml, loaded then, whose errors are the ones to show.
 */
export function parseKubeconfig(text: string): KubeconfigFile['doc'] {
  if (text.trimStart().startsWith('{')) {
    try {
      return (JSON.parse(text) ?? {}) as KubeconfigFile['doc'];
    } catch {
      // not JSON after all: YAML's flow mappings start with "{" too
    }
  }
  const plain = parseBlockYaml(text);
  if (plain !== undefined) return (plain ?? {}) as KubeconfigFile['doc'];
  const { load } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
  return (load(text) ?? {}) as KubeconfigFile['doc'];
}

function readKubeconfig(path: string, mustExist: boolean): KubeconfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!mustExist && (error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  return { dir: dirname(path), doc: parseKubeconfig(text) };
}

/** The kubeconfig files on disk for these flags; those that do not exist are left out, as kubectl does, but --kubeconfig's. */
export function readKubeconfigs(flags: KubeFlags, env: Record<string, string | undefined>): KubeconfigFile[] {
  return kubeconfigPaths(flags, env)
    .map((p) => readKubeconfig(p, Boolean(flags.kubeconfig)))
    .filter((f): f is KubeconfigFile => f !== undefined);
}

/** The connection, namespace and context for these flags, read from the kubeconfig files on disk. */
export function loadKubeconfig(flags: KubeFlags, env: Record<string, string | undefined> = process.env): Kubeconfig {
  return resolveKubeconfig(readKubeconfigs(flags, env), flags);
}
