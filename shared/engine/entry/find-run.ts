// The run a control request names: by its name, or by the iuid of its run
// request. An iuid's run is found as a run request finds it: under the Go
// controller's name, else under the name with the iuid's hash, used when a
// run of another iuid held the first.
import type { RunTarget } from '../../api/events.ts';
import { runName } from '../../names.ts';
import type { EngineDeps } from '../deps.ts';

/** The run's name, or undefined when no run answers to it (no read is made for a run name: the engine reads it anyway). */
export async function findRun(
  deps: Pick<EngineDeps, 'store' | 'config'>,
  target: RunTarget,
): Promise<string | undefined> {
  if (target.runname !== undefined) return target.runname;
  const iuid = target.iuid ?? '';
  for (const collided of [false, true]) {
    const name = runName(deps.config.scenarioName, iuid, collided);
    if (!name.ok) return undefined;
    const run = await deps.store.getRun(name.name);
    if (run?.spec.pid === iuid) return name.name;
  }
  return undefined;
}
