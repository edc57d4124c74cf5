// The run a control request names: by its name, or by the iuid of its run
// request, found as a run request names it (the Go controller's name, else
// the name with the iuid's hash appended).
import type { CascadeRun } from '../api/cascade-run.ts';
import type { RunTarget } from '../api/events.ts';
import { runName } from '../names.ts';
import type { EngineDeps } from './deps.ts';

/** The run's name, or undefined when no run of that iuid exists. */
export async function findRunName(deps: EngineDeps, target: Pick<RunTarget, 'runname' | 'iuid'>): Promise<string | undefined> {
  if (target.runname !== undefined) return target.runname;
  if (target.iuid === undefined) return undefined;
  for (const collided of [false, true]) {
    const name = runName(deps.config.scenarioName, target.iuid, collided);
    if (!name.ok) return undefined;
    const run: CascadeRun | undefined = await deps.store.getRun(name.name);
    if (run?.spec.pid === target.iuid) return name.name;
    if (!run) return undefined;
  }
  return undefined;
}
