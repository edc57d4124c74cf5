// Everything the function needs, made once at start-up from the environment.
import pino, { type Logger } from 'pino';
import { parseConfig, type Config } from '../../shared/config.ts';
import type { EngineDeps } from '../../shared/engine/deps.ts';
import { sinkNotifier } from '../../shared/engine/sink.ts';
import { kubeApis } from '../../shared/kube/apis.ts';
import { DEFAULT_RETRY } from '../../shared/kube/retry.ts';
import { kubeStore } from '../../shared/kube/store.ts';

export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(`configuration: ${parsed.reason}`);
  return parsed.value;
}

export function rootLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { app: 'cascade', scenario: config.scenarioName } });
}

export function engineDeps(config: Config, log: Logger): EngineDeps {
  const store = kubeStore(kubeApis(), config.namespace, DEFAULT_RETRY);
  return { config, store, log, now: () => new Date(), notify: sinkNotifier(config.sink, log) };
}
