// Configuration from the environment, parsed once at start-up into a typed
// value and passed down (design note 4). The Go controller's variables and
// defaults, plus Cascade's own.
export interface Config {
  configPath: string;
  namespace: string;
  scenarioName: string;
  sid: string;
  outMinioAddress: string;
  sink: string | undefined;
  /** Fail a run whose current step made no progress for this long (janitor). 0 = never. */
  stallAfterSeconds: number;
  /** Fail a run older than this (janitor and engine). 0 = never. */
  runTimeoutSeconds: number;
  logLevel: string;
}

export type ConfigResult = { ok: true; value: Config } | { ok: false; reason: string };

function seconds(env: NodeJS.ProcessEnv, key: string, fallback: number): number | string {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : `${key} must be a whole number of seconds, got "${raw}"`;
}

export function parseConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const stall = seconds(env, 'CASCADE_STALL_AFTER_SECONDS', 0);
  const timeout = seconds(env, 'CASCADE_RUN_TIMEOUT_SECONDS', 0);
  if (typeof stall === 'string') return { ok: false, reason: stall };
  if (typeof timeout === 'string') return { ok: false, reason: timeout };
  return {
    ok: true,
    value: {
      configPath: env.CONFIG_PATH || '/tmp/configuration',
      namespace: env.POD_NAMESPACE || 'cascade-operator',
      scenarioName: env.SCENARIO_NAME || 'cascadeautooperator-ip',
      sid: env.SID || 'UnderTest',
      outMinioAddress: env.OUT_MINIO_ADDRESS || 'http://example.com/test-out/',
      sink: env.K_SINK || undefined,
      stallAfterSeconds: stall,
      runTimeoutSeconds: timeout,
      logLevel: env.LOG_LEVEL || 'info',
    },
  };
}
