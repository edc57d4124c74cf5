// Everything one janitor sweep needs, made from the configuration. It has the
// same Store, clock and run-end notifier as the function; the notifier sends
// owed run-end events within the sweep, one retry each. Its pino logger writes
// to stderr, so that stdout carries only the summary line.
import pino, { type Logger } from 'pino';
import type { Config } from '../../shared/config.ts';
import type { EngineDeps } from '../../shared/engine/deps.ts';
import { janitorEngine } from '../../shared/engine/profiles.ts';
import { JANITOR_SINK_POLICY, sinkNotifier } from '../../shared/engine/sink/sink.ts';
import { sinkOf } from '../../shared/engine/sink/sink-transport.ts';
import { DEFAULT_RETRY } from '../../shared/kube/api-retry.ts';
import { connectStore } from '../../shared/kube/connect.ts';

export function janitorLogger(config: Pick<Config, 'logLevel' | 'scenarioName'>): Logger {
  return pino(
    { level: config.logLevel, base: { app: 'cascade-janitor', scenario: config.scenarioName } },
    pino.destination(2),
  );
}

export function janitorDeps(config: Config, log: Logger): EngineDeps {
  const store = connectStore(config.namespace, DEFAULT_RETRY);
  const notify = sinkNotifier(sinkOf(config, log), log, JANITOR_SINK_POLICY);
  return janitorEngine({ config, store, log, now: () => new Date(), notify });
}
