// Configuration from the environment, parsed once at start-up into a typed
// value and passed down. The Go controller's variables and defaults, plus
// Cascade's own. See docs/architecture.md#validate-at-the-edges.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parseCeOverrides, type Extensions } from './ce-overrides.ts';
import { moduleSinkOf, type ModuleSink } from './core/module-sink.ts';

/** Where the kubelet writes the pod's namespace, beside its ServiceAccount token. */
export const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
/** Where SinkBinding mounts the OIDC token: its Secret projected on /oidc, key `token`. No variable names it. */
export const OIDC_TOKEN_FILE = '/oidc/token';
/** Where SinkBinding mounts the ConfigMaps labelled networking.knative.dev/trust-bundle (knative/eventing pkg/eventingtls). */
export const TRUST_BUNDLE_DIR = '/knative-custom-certs';

export interface ConfigSources {
  /** The ServiceAccount's namespace file, read when POD_NAMESPACE is unset (SERVICE_ACCOUNT_NAMESPACE_FILE). */
  namespaceFile?: string;
  /** Where trust bundles are mounted (TRUST_BUNDLE_DIR). */
  trustBundleDir?: string;
}

export interface Config {
  configPath: string;
  namespace: string;
  scenarioName: string;
  /** CASCADE_SCENARIOS: the scenarios a run request may name besides SCENARIO_NAME; undefined = any CascadeAutoOperator of the namespace. */
  scenarios: string[] | undefined;
  outMinioAddress: string;
  sink: string | undefined;
  /** CloudEvent extensions added to every event sent to K_SINK (K_CE_OVERRIDES). */
  ceExtensions: Extensions;
  /** K_CA_CERTS: PEM certificates SinkBinding injects with Eventing's transport encryption on. */
  sinkCaCerts: string | undefined;
  /** The OIDC token SinkBinding mounts with authentication-oidc on (CASCADE_OIDC_TOKEN_FILE, default /oidc/token). */
  oidcTokenFile: string;
  /** The trust bundles SinkBinding mounts with transport encryption on (TRUST_BUNDLE_DIR). */
  trustBundleDir: string;
  /** K_SINK this process gives module Jobs itself (core/module-sink.ts); unset: the SinkBinding `cascade-modules` does. */
  moduleSink?: ModuleSink | undefined;
  /** What the configuration changed or left out and the process still started with: logged once at start-up. */
  warnings: string[];
  /** Fail a run whose current step made no progress for this long (janitor). 0 = never; default DEFAULT_STALL_AFTER_SECONDS. */
  stallAfterSeconds: number;
  /** Fail a run older than this (janitor and engine). 0 = never; default DEFAULT_RUN_TIMEOUT_SECONDS. */
  runTimeoutSeconds: number;
  /** The janitor deletes finished runs (and their Jobs) this long after they ended. 0 = keep forever; default DEFAULT_RETENTION_SECONDS. */
  retentionSeconds: number;
  logLevel: string;
  /** Token bucket of the function: requests a second, and burst (the Go controller's 100/s, 200). */
  rateLimitPerSecond: number;
  rateBurst: number;
  /** Port of Cascade's own /metrics (faas-js-runtime's /metrics serves only its own registry). 0 = off. */
  metricsPort: number;
  /** How long SIGTERM waits for requests in flight. */
  shutdownGraceSeconds: number;
  /** Objects per page of the janitor's lists (CASCADE_LIST_PAGE_SIZE, at least 1). */
  listPageSize: number;
  /** When set, every call of the function must carry `Authorization: Bearer <authToken>` (CASCADE_AUTH_TOKEN). */
  authToken: string | undefined;
  /**
   * CASCADE_TRUST_JOB_EVENTS=true: a Job event's copy of the Job moves its run
   * without a read of the Job. Safe only where the Broker admits no other sender.
   */
  trustJobEvents: boolean;
}

/**
 * State stays bounded unless told otherwise. A run without progress for an
 * hour fails (Stalled). A run older than a day fails (DeadlineExceeded). The
 * janitor deletes an ended run a week after its end. docs/contract.md states
 * them; 0 turns each off.
 */
export const DEFAULT_STALL_AFTER_SECONDS = 3600;
export const DEFAULT_RUN_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_RETENTION_SECONDS = 604_800;

export type ConfigResult = { ok: true; value: Config } | { ok: false; reason: string };

function whole(env: NodeJS.ProcessEnv, key: string, fallback: number, unit = 'seconds'): number | string {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : `${key} must be a whole number of ${unit}, got "${raw}"`;
}

type Numbers = Pick<
  Config,
  | 'stallAfterSeconds'
  | 'runTimeoutSeconds'
  | 'retentionSeconds'
  | 'rateLimitPerSecond'
  | 'rateBurst'
  | 'metricsPort'
  | 'shutdownGraceSeconds'
  | 'listPageSize'
>;

function positive(env: NodeJS.ProcessEnv, key: string, fallback: number, unit: string): number | string {
  const n = whole(env, key, fallback, unit);
  return n === 0 ? `${key} must be at least 1, got "0"` : n;
}

function numbers(env: NodeJS.ProcessEnv): Numbers | string {
  const values = {
    stallAfterSeconds: whole(env, 'CASCADE_STALL_AFTER_SECONDS', DEFAULT_STALL_AFTER_SECONDS),
    runTimeoutSeconds: whole(env, 'CASCADE_RUN_TIMEOUT_SECONDS', DEFAULT_RUN_TIMEOUT_SECONDS),
    retentionSeconds: whole(env, 'CASCADE_RETENTION_SECONDS', DEFAULT_RETENTION_SECONDS),
    rateLimitPerSecond: whole(env, 'CASCADE_RATE_LIMIT', 100, 'requests a second'),
    rateBurst: whole(env, 'CASCADE_RATE_BURST', 200, 'requests'),
    metricsPort: whole(env, 'CASCADE_METRICS_PORT', 9095, 'port'),
    shutdownGraceSeconds: whole(env, 'CASCADE_SHUTDOWN_GRACE_SECONDS', 25),
    listPageSize: positive(env, 'CASCADE_LIST_PAGE_SIZE', 500, 'objects'),
  };
  const problem = Object.values(values).find((v) => typeof v === 'string');
  return typeof problem === 'string' ? problem : (values as Numbers);
}

/** A shorter CASCADE_AUTH_TOKEN is refused: `openssl rand -hex 32` gives 64 characters. */
export const MIN_TOKEN_LENGTH = 32;

/** CASCADE_AUTH_TOKEN (unset or empty: no check), or why it cannot be used. */
function authToken(env: NodeJS.ProcessEnv): { token: string | undefined } | string {
  const token = env.CASCADE_AUTH_TOKEN;
  if (!token) return { token: undefined };
  if (token.length < MIN_TOKEN_LENGTH)
    return `CASCADE_AUTH_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters, got ${token.length}`;
  // a token written with `echo` into a Secret ends with a line break no caller sends
  if (/[^\x21-\x7e]/.test(token)) return 'CASCADE_AUTH_TOKEN must be printable ASCII without spaces or line breaks';
  return { token };
}

/** The namespace in the ServiceAccount's namespace file, if there is one (a pod with a ServiceAccount token). */
export function serviceAccountNamespace(path: string = SERVICE_ACCOUNT_NAMESPACE_FILE): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined; // no such file: not in a pod, or no token mounted
  }
}

/**
 * The namespace of the runs and Jobs: POD_NAMESPACE when set, else the pod's
 * own namespace from its ServiceAccount (no downward API needed, which Knative
 * Serving allows only with kubernetes.podspec-fieldref), else the Go
 * controller's default.
 */
function namespaceOf(env: NodeJS.ProcessEnv, sources: ConfigSources): string {
  return env.POD_NAMESPACE || serviceAccountNamespace(sources.namespaceFile) || 'cascade-operator';
}

/** "true" or "false"; unset or empty: false. */
function flag(env: NodeJS.ProcessEnv, key: string): boolean | string {
  const raw = env[key];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  return raw === 'true' ? true : `${key} must be true or false, got "${raw}"`;
}

/** A comma-separated list; unset or empty: undefined (no list). */
function scenarioList(raw: string | undefined): string[] | undefined {
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return names.length > 0 ? names : undefined;
}

type SinkSettings = Pick<Config, 'sink' | 'sinkCaCerts' | 'oidcTokenFile' | 'trustBundleDir' | 'moduleSink'>;

/** The trust bundles' files in `dir` (TRUST_BUNDLE_DIR on a cluster); none when it is absent (no bundles, or not in a pod). */
export function trustBundleFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => !f.startsWith('.'));
  } catch {
    return [];
  }
}

/** Where run-end events go, and what SinkBinding injected to reach a sink under TLS and OIDC. */
function sinkSettings(env: NodeJS.ProcessEnv, sources: ConfigSources): SinkSettings {
  const sink = env.K_SINK || undefined;
  const sinkCaCerts = env.K_CA_CERTS || undefined;
  const oidcTokenFile = env.CASCADE_OIDC_TOKEN_FILE || OIDC_TOKEN_FILE;
  const trustBundleDir = sources.trustBundleDir ?? TRUST_BUNDLE_DIR;
  const own = {
    sink,
    caCerts: sinkCaCerts,
    oidcToken: existsSync(oidcTokenFile),
    trustBundles: trustBundleFiles(trustBundleDir).length > 0,
  };
  const moduleSink = env.CASCADE_MODULE_SINK === 'binding' ? undefined : moduleSinkOf(own);
  return { sink, sinkCaCerts, oidcTokenFile, trustBundleDir, moduleSink };
}

/** CASCADE_MODULE_SINK: `function` (the default) or `binding`. */
function moduleSinkMode(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.CASCADE_MODULE_SINK;
  if (raw === undefined || raw === '' || raw === 'function' || raw === 'binding') return undefined;
  return `CASCADE_MODULE_SINK must be function or binding, got "${raw}"`;
}

export function parseConfig(env: NodeJS.ProcessEnv, sources: ConfigSources = {}): ConfigResult {
  const n = numbers(env);
  if (typeof n === 'string') return { ok: false, reason: n };
  const auth = authToken(env);
  if (typeof auth === 'string') return { ok: false, reason: auth };
  const overrides = parseCeOverrides(env.K_CE_OVERRIDES);
  if (!overrides.ok) return overrides;
  const trustJobEvents = flag(env, 'CASCADE_TRUST_JOB_EVENTS');
  if (typeof trustJobEvents === 'string') return { ok: false, reason: trustJobEvents };
  const sinkMode = moduleSinkMode(env);
  if (sinkMode) return { ok: false, reason: sinkMode };
  return {
    ok: true,
    value: {
      configPath: env.CONFIG_PATH || '/tmp/configuration',
      namespace: namespaceOf(env, sources),
      scenarioName: env.SCENARIO_NAME || 'cascadeautooperator-ip',
      scenarios: scenarioList(env.CASCADE_SCENARIOS),
      outMinioAddress: env.OUT_MINIO_ADDRESS || 'http://example.com/test-out/',
      ...sinkSettings(env, sources),
      ceExtensions: overrides.extensions,
      warnings: overrides.warnings,
      logLevel: env.LOG_LEVEL || 'info',
      authToken: auth.token,
      trustJobEvents,
      ...n,
    },
  };
}
