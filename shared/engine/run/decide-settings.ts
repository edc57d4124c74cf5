// What the core's decisions take from the configuration (DecideSettings).
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { Config } from '../../config.ts';
import type { DecideSettings } from '../../core/types.ts';

/** For `run`: its own scenario (a run request may name one), else the configured one. */
export function decideSettings(c: Config, run: CascadeRun): DecideSettings {
  return {
    namespace: c.namespace,
    scenarioName: run.spec.scenarioname || c.scenarioName,
    outMinioAddress: c.outMinioAddress,
    moduleSink: c.moduleSink,
    stallAfterSeconds: c.stallAfterSeconds,
    runTimeoutSeconds: c.runTimeoutSeconds,
    sink: c.sink !== undefined,
  };
}
