// A module's result (or a Job's change): move that run, and say how the fact was taken.
import type { EngineDeps } from './deps.ts';
import { accepted, invalid, type Outcome } from './outcome.ts';
import { reconcileRun } from './reconcile.ts';

export interface ModuleResult {
  runname: string;
  modulename: string;
  moduleresult: string;
}

export async function acceptModuleResult(deps: EngineDeps, res: ModuleResult): Promise<Outcome> {
  const fact = { kind: 'ModuleResult', modulename: res.modulename, moduleresult: res.moduleresult } as const;
  const result = await reconcileRun(deps, res.runname, fact);
  if (result.kind === 'missing') return invalid(`unknown run "${res.runname}"`);
  const { verdict } = result.decision;
  if (verdict === 'unknown-module') return invalid(`run "${res.runname}" has no module "${res.modulename}"`);
  if (verdict === 'not-started') return invalid(`module "${res.modulename}" of run "${res.runname}" has not started`);
  return accepted({ run: res.runname, module: res.modulename, verdict, phase: result.decision.status.phase });
}

/** A Job of Cascade's changed (ApiServerSource, or the janitor): look at its run again. */
export async function observeRun(deps: EngineDeps, runname: string): Promise<Outcome> {
  const result = await reconcileRun(deps, runname, { kind: 'Observe' });
  if (result.kind === 'missing') return accepted({ run: runname, verdict: 'no such run' });
  return accepted({ run: runname, verdict: 'observed', phase: result.decision.status.phase });
}
