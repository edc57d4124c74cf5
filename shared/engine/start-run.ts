// A run request: one CascadeRun per iuid (delivered twice, it is still one),
// counted once on the CascadeAutoOperator, then moved like any other run.
import type { CascadeRun } from '../api/cascade-run.ts';
import type { RunRequest } from '../api/events.ts';
import { quote } from '../api/reason.ts';
import { API_VERSION, CASCADE_RUN_KIND } from '../api/group.ts';
import type { CascadeModule } from '../api/scenario.ts';
import { LABEL_APP, LABEL_APP_VALUE, LABEL_IUID_HASH, runName, shortHash } from '../names.ts';
import type { EngineDeps } from './deps.ts';
import { count } from './operator-counters.ts';
import { accepted, failed, invalid, unavailable, type Outcome } from './outcome.ts';
import { reconcileRun } from './reconcile.ts';
import { loadScenario } from './scenario-source.ts';

function runObject(deps: EngineDeps, name: string, req: RunRequest, modules: CascadeModule[]): CascadeRun {
  const { namespace, scenarioName } = deps.config;
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_RUN_KIND,
    metadata: { name, namespace, labels: { [LABEL_APP]: LABEL_APP_VALUE, [LABEL_IUID_HASH]: shortHash(req.iuid, 16) } },
    spec: {
      ob: req.oname ?? '', src: req.sname ?? '', pid: req.iuid, scenarioname: scenarioName,
      modules: modules.map((m) => m.modulename), turlinfo: req.turlinfo, cascademodules: modules,
    },
  };
}

/**
 * Creates the run under the Go controller's name; when a run of another iuid
 * holds that name, under the name with the iuid's hash appended. Returns the
 * name of this iuid's run, new or existing.
 */
async function createOnce(deps: EngineDeps, req: RunRequest, modules: CascadeModule[]): Promise<{ name: string; created?: CascadeRun } | Outcome> {
  for (const collided of [false, true]) {
    const name = runName(deps.config.scenarioName, req.iuid, collided);
    if (!name.ok) return invalid(name.reason);
    for (let attempt = 0; attempt < 3; attempt++) {
      const created = await deps.store.createRun(runObject(deps, name.name, req, modules));
      if (created !== 'exists') return { name: name.name, created };
      const existing = await deps.store.getRun(name.name);
      if (existing?.spec.pid === req.iuid) return { name: name.name };
      if (existing) break; // another iuid holds it: try the next name
    }
  }
  return failed(`iuid ${quote(req.iuid)}: both of its run names are held by runs of other iuids`);
}

export async function startRun(deps: EngineDeps, req: RunRequest): Promise<Outcome> {
  const op = await deps.store.getOperator(deps.config.scenarioName);
  if (op?.metadata.deletionTimestamp) return unavailable(`CascadeAutoOperator ${op.metadata.name} is being deleted: no new runs`);
  const scenario = await loadScenario(op, deps.config.configPath);
  if (!scenario.ok) return failed(`the scenario is not usable: ${scenario.reason}`);
  const made = await createOnce(deps, req, scenario.modules);
  if ('kind' in made) return made;
  const { name, created } = made;
  // Counted and moved at once: both must succeed for the reply to be 200, and a
  // run request sent again counts nothing twice (counters are keyed by run).
  const [, result] = await Promise.all([
    count(deps, { kind: 'started', run: name }),
    reconcileRun(deps, name, { kind: 'Observe' }, created),
  ]);
  if (result.kind !== 'done') return unavailable(`run ${name} vanished while it was being started`);
  return accepted({ run: name, phase: result.run.status?.phase, iuid: req.iuid });
}
