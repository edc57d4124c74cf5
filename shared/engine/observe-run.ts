// A Job of Cascade's changed (ApiServerSource, or the janitor): look at its run again.
import type { EngineDeps } from './deps.ts';
import { accepted, type Outcome } from './outcome.ts';
import { reconcileRun } from './reconcile.ts';

export async function observeRun(deps: EngineDeps, runname: string): Promise<Outcome> {
  const result = await reconcileRun(deps, runname, { kind: 'Observe' });
  if (result.kind === 'missing') return accepted({ run: runname, verdict: 'no such run' });
  return accepted({ run: runname, verdict: 'observed', phase: result.decision.status.phase });
}
