// A module's result: move its run, and say how the fact was taken.
import type { ModuleResult } from '../../api/events.ts';
import { quote } from '../../api/reason.ts';
import type { EngineDeps } from '../deps.ts';
import { accepted, invalid, type Outcome } from './outcome.ts';
import { reconcileRun } from '../run/reconcile.ts';

/**
 * Decided from the run alone first, with no list of its Jobs. The step's Job
 * and the next one are then unknown, created or deleted by name. Only a
 * result for a step the run has not recorded started looks for that step's
 * Job in a list: a later step's Job proves the steps before it succeeded.
 */
export async function acceptModuleResult(deps: EngineDeps, res: ModuleResult): Promise<Outcome> {
  const fact = { kind: 'ModuleResult', modulename: res.modulename, moduleresult: res.moduleresult } as const;
  const first = await reconcileRun(deps, res.runname, fact, { jobs: [] });
  const notStarted = first.kind === 'rejected' && first.decision.verdict === 'not-started';
  const result = notStarted ? await reconcileRun(deps, res.runname, fact) : first;
  if (result.kind === 'missing') return invalid(`unknown run ${quote(res.runname)}`);
  const { verdict } = result.decision;
  if (verdict === 'unknown-module') return invalid(`run ${quote(res.runname)} has no module ${quote(res.modulename)}`);
  if (verdict === 'not-started')
    return invalid(`module ${quote(res.modulename)} of run ${quote(res.runname)} has not started`);
  return accepted({ run: res.runname, module: res.modulename, verdict, phase: result.decision.status.phase });
}
