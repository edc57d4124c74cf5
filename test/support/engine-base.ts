// What an engine built in the test's process is given: the harness's
// configuration, a store over the function's ServiceAccount, a silent logger,
// the clock, and no run-end sink.
import pino from 'pino';
import { parseConfig } from '../../shared/config.ts';
import type { EngineBase } from '../../shared/engine/deps.ts';
import { DEFAULT_RETRY } from '../../shared/kube/api-retry.ts';
import { connectStore } from '../../shared/kube/connect.ts';

export function engineBase(env: Record<string, string | undefined>): EngineBase {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(parsed.reason);
  const config = parsed.value;
  return {
    config,
    store: connectStore(config.namespace, DEFAULT_RETRY, env.KUBECONFIG),
    log: pino({ level: 'silent' }),
    now: () => new Date(),
    notify: async () => false,
  };
}
