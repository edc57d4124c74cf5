// A request to cancel a run, as a CloudEvent or a plain body. The run is
// decided with the Cancel fact, shared/core/cancel.ts, like any other. So its
// Jobs go, its slot is released and its run-end event sent by the same loop.
import type { RunTarget } from '../../api/events.ts';
import { quote } from '../../api/reason.ts';
import type { EngineDeps } from '../deps.ts';
import { findRun } from './find-run.ts';
import { accepted, invalid, type Outcome } from './outcome.ts';
import { reconcileRun } from '../run/reconcile.ts';

function unknown(target: RunTarget): Outcome {
  return invalid(
    target.runname !== undefined
      ? `unknown run ${quote(target.runname)}`
      : `no run of iuid ${quote(target.iuid ?? '')}`,
  );
}

export async function cancelRun(deps: EngineDeps, target: RunTarget): Promise<Outcome> {
  const name = await findRun(deps, target);
  if (name === undefined) return unknown(target);
  const result = await reconcileRun(deps, name, { kind: 'Cancel' });
  if (result.kind !== 'done') return unknown(target);
  const { status, verdict } = result.decision;
  return accepted({ run: name, phase: status.phase, verdict });
}
