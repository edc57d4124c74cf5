// A run request makes one CascadeRun per iuid, however often it is delivered.
// It starts only under a CascadeAutoOperator that holds Cascade's finalizer,
// or from the CONFIG_PATH file when there is no operator, with a warning. Its
// start is written once on the operator, then it is moved like any other run. The request may name its
// scenario (`scenario`, else SCENARIO_NAME); under the scenario's
// maxConcurrentRuns that write admits or queues the run (admission.ts) before
// it is moved.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { RunRequest } from '../../api/events.ts';
import { quote } from '../../api/reason.ts';
import { API_VERSION, CASCADE_RUN_KIND } from '../../api/group.ts';
import type { CascadeModule } from '../../api/scenario.ts';
import {
  ANNOTATION_SCENARIO_SOURCE,
  LABEL_APP,
  LABEL_APP_VALUE,
  LABEL_IUID_HASH,
  runName,
  shortHash,
} from '../../names.ts';
import type { EngineDeps } from '../deps.ts';
import { holdOperator } from '../operator/hold-operator.ts';
import { slotChange } from '../operator/admission-writes.ts';
import { isHeld } from '../operator/operator-finalizer.ts';
import { accepted, failed, invalid, unavailable, type Outcome } from './outcome.ts';
import { admissionAfterStart, awaitsAdmission } from '../operator/admission.ts';
import { reconcileRun } from '../run/reconcile.ts';
import { loadScenario } from './scenario-source.ts';
import { startAfterReply } from './start-created.ts';

interface Scenario {
  modules: CascadeModule[];
  source: string;
}

function runObject(deps: EngineDeps, name: string, req: RunRequest, scenario: Scenario): CascadeRun {
  const { namespace } = deps.config;
  const scenarioName = scenarioNameOf(deps, req);
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_RUN_KIND,
    metadata: {
      name,
      namespace,
      labels: { [LABEL_APP]: LABEL_APP_VALUE, [LABEL_IUID_HASH]: shortHash(req.iuid, 16) },
      annotations: { [ANNOTATION_SCENARIO_SOURCE]: scenario.source },
    },
    spec: {
      ob: req.oname ?? '',
      src: req.sname ?? '',
      pid: req.iuid,
      scenarioname: scenarioName,
      modules: scenario.modules.map((m) => m.modulename),
      turlinfo: req.turlinfo,
      cascademodules: scenario.modules,
    },
  };
}

interface Made {
  name: string;
  /** The run as created, or as found when this iuid's run existed already. */
  run: CascadeRun;
  created: boolean;
}

/**
 * Creates the run under the Go controller's name; when a run of another iuid
 * holds that name, under the name with the iuid's hash appended. Returns this
 * iuid's run, new or existing.
 */
async function createOnce(deps: EngineDeps, req: RunRequest, scenario: Scenario): Promise<Made | Outcome> {
  for (const collided of [false, true]) {
    const name = runName(scenarioNameOf(deps, req), req.iuid, collided);
    if (!name.ok) return invalid(name.reason);
    for (let attempt = 0; attempt < 3; attempt++) {
      const created = await deps.store.createRun(runObject(deps, name.name, req, scenario));
      if (created !== 'exists') return { name: name.name, run: created, created: true };
      const existing = await deps.store.getRun(name.name);
      if (existing?.spec.pid === req.iuid) return { name: name.name, run: existing, created: false };
      if (existing) break; // another iuid holds it: try the next name
    }
  }
  return failed(`iuid ${quote(req.iuid)}: both of its run names are held by runs of other iuids`);
}

/** Not silent: the first run from the file in this process (or after the operator was used) is a warning. */
function noteFileSource(deps: EngineDeps, source: string): void {
  const memo = deps.scenarioSource;
  if (memo.last === source) return;
  memo.last = source;
  deps.log.warn(
    { scenario: source },
    `CascadeAutoOperator ${deps.config.scenarioName} not found: new runs take their scenario from the file at CONFIG_PATH`,
  );
}

/** The start was written on an operator that no longer holds the finalizer (deleted while the run started): say so. */
function checkHeld(
  deps: EngineDeps,
  name: string,
  afterStart: CascadeAutoOperator | undefined,
  scenario: string,
): void {
  if (isHeld(afterStart)) return;
  deps.log.warn(
    { run: name },
    `CascadeAutoOperator ${scenario} was deleted while run ${name} started: the run goes on, its counters may not be kept`,
  );
}

/** The scenario of a new run: from the held operator, else from the file (with a warning). */
async function scenarioFor(
  deps: EngineDeps,
  op: CascadeAutoOperator | undefined,
  name: string,
): Promise<Scenario | Outcome> {
  // The CONFIG_PATH file stands in for SCENARIO_NAME's operator only.
  if (!op && name !== deps.config.scenarioName)
    return failed(`no CascadeAutoOperator ${quote(name)} in namespace ${deps.config.namespace}`);
  if (op) deps.scenarioSource.last = undefined;
  const scenario = await loadScenario(op, deps.config.configPath);
  if (!scenario.ok) return failed(`the scenario is not usable: ${scenario.reason}`);
  if (!op) noteFileSource(deps, scenario.source);
  return scenario;
}

/** The scenario a run request names, else SCENARIO_NAME. */
export function scenarioNameOf(deps: Pick<EngineDeps, 'config'>, req: RunRequest): string {
  return req.scenario ?? deps.config.scenarioName;
}

/** A scenario outside CASCADE_SCENARIOS (when set) is refused: the request, not the deployment, is wrong. */
function allowed(deps: EngineDeps, scenario: string): boolean {
  const list = deps.config.scenarios;
  return scenario === deps.config.scenarioName || list === undefined || list.includes(scenario);
}

/** Under a limit (or with runs still queued), admission comes first: the run is started only once the operator says so. */
function limited(op: CascadeAutoOperator | undefined): boolean {
  return op?.spec.maxConcurrentRuns !== undefined || (op?.status?.queue?.length ?? 0) > 0;
}

/**
 * The start's slot change, on the operator as `op` was read. A run whose
 * phase is past admission had its start written before that phase was: a
 * request sent again, however late, writes nothing, and gets `op` back.
 */
function writeStart(
  deps: EngineDeps,
  made: Made,
  scenario: string,
  op: CascadeAutoOperator | undefined,
): Promise<CascadeAutoOperator | undefined> {
  if (!made.created && !awaitsAdmission(made.run)) return Promise.resolve(op);
  return slotChange(deps, { kind: 'started', run: made.name }, scenario, op);
}

/** Started and moved: at once without a limit, admitted (or queued) first under one. */
async function startAndMove(deps: EngineDeps, made: Made, scenario: string, op: CascadeAutoOperator | undefined) {
  const { name, run, created } = made;
  // A run this request created is moved from the object the create returned,
  // with none of its Jobs shown (no list): one created meanwhile by another
  // delivery is adopted when the create meets it.
  const from = created ? { known: run, jobs: [] } : {};
  // The operator just read for its finalizer spares the slot write a read of its own.
  if (limited(op)) {
    const afterStart = await writeStart(deps, made, scenario, op);
    const admission = admissionAfterStart(afterStart, name);
    return { afterStart, result: await reconcileRun(deps, name, { kind: 'Observe' }, { ...from, admission }) };
  }
  // Started first, then moved: a run with a phase has had its start written.
  const afterStart = await writeStart(deps, made, scenario, op);
  return { afterStart, result: await reconcileRun(deps, name, { kind: 'Observe' }, from) };
}

/** The reply to a run request: the run as it stands, `Pending` until its first decision is written. */
function replyOf(deps: EngineDeps, req: RunRequest, made: Made, phase: string | undefined): Outcome {
  const source = made.run.metadata.annotations?.[ANNOTATION_SCENARIO_SOURCE];
  return accepted({
    run: made.name,
    namespace: deps.config.namespace,
    phase: phase ?? 'Pending',
    iuid: req.iuid,
    ...(source ? { scenario: source } : {}),
  });
}

/**
 * Answered once the run is durable: its start is written and its first Job
 * made after the reply, in this process (start-created.ts). Under a limit the
 * start's admission comes first, so that the reply can say `Queued`.
 */
async function answerDurable(
  deps: EngineDeps & { background: NonNullable<EngineDeps['background']> },
  req: RunRequest,
  made: Made,
  { scenario, op }: { scenario: string; op: CascadeAutoOperator | undefined },
): Promise<Outcome> {
  const { name, run } = made;
  const from = made.created ? { known: run, jobs: [] } : {};
  if (!limited(op)) {
    startAfterReply(deps, name, async () => {
      const afterStart = await writeStart(deps, made, scenario, op);
      if (op) checkHeld(deps, name, afterStart, scenario);
      await reconcileRun(
        deps,
        name,
        { kind: 'Observe' },
        { ...from, admission: admissionAfterStart(afterStart, name) },
      );
    });
    return replyOf(deps, req, made, run.status?.phase);
  }
  const afterStart = await writeStart(deps, made, scenario, op);
  checkHeld(deps, name, afterStart, scenario);
  const admission = admissionAfterStart(afterStart, name);
  startAfterReply(deps, name, async () => {
    await reconcileRun(deps, name, { kind: 'Observe' }, { ...from, admission });
  });
  return replyOf(deps, req, made, admission === 'queued' ? 'Queued' : run.status?.phase);
}

export async function startRun(deps: EngineDeps, req: RunRequest): Promise<Outcome> {
  const scenarioName = scenarioNameOf(deps, req);
  if (!allowed(deps, scenarioName))
    return invalid(`scenario ${quote(scenarioName)} is not one this function serves (CASCADE_SCENARIOS)`);
  const held = await holdOperator(deps, scenarioName);
  if ('kind' in held) return held;
  const scenario = await scenarioFor(deps, held.op, scenarioName);
  if ('kind' in scenario) return scenario;
  const made = await createOnce(deps, req, scenario);
  if ('kind' in made) return made;
  const { background } = deps;
  if (background) return answerDurable({ ...deps, background }, req, made, { scenario: scenarioName, op: held.op });
  const { name } = made;
  // Started and moved: both must succeed for the reply to be 200, and a
  // run request sent again takes no second slot (the lists hold each run once).
  const { afterStart, result } = await startAndMove(deps, made, scenarioName, held.op);
  if (held.op) checkHeld(deps, name, afterStart, scenarioName);
  if (result.kind !== 'done') return unavailable(`run ${name} vanished while it was being started`);
  return replyOf(deps, req, made, result.run.status?.phase);
}
