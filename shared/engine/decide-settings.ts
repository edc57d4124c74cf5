// What the core's decisions take from the configuration (DecideSettings).
import type { Config } from '../config.ts';
import type { DecideSettings } from '../core/types.ts';

export function decideSettings(c: Config): DecideSettings {
  return {
    namespace: c.namespace, scenarioName: c.scenarioName, outMinioAddress: c.outMinioAddress,
    stallAfterSeconds: c.stallAfterSeconds, runTimeoutSeconds: c.runTimeoutSeconds, sink: c.sink !== undefined,
  };
}
