// The light start-up pieces: configuration and the root logger.
import pino, { type Logger } from 'pino';
import { parseConfig, type Config } from '../../shared/config.ts';

export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(`configuration: ${parsed.reason}`);
  return parsed.value;
}

export function rootLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { app: 'cascade', scenario: config.scenarioName } });
}
