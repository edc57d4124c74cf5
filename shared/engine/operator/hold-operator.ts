// Before a run starts under the CascadeAutoOperator, the operator must carry
// Cascade's finalizer, so that it cannot vanish before the run has ended and
// released its slot. The operator just read shows whether it does: the write happens
// once per operator (the first run, or the janitor before it), not per run.
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import { apiErrorKind } from '../../kube/errors.ts';
import { conflictPause } from '../run/conflict-pause.ts';
import type { EngineDeps } from '../deps.ts';
import { operatorGate } from './operator-finalizer.ts';
import { unavailable, type Outcome } from '../entry/outcome.ts';

const HOLD_ATTEMPTS = 10;

/**
 * The scenario's operator, held by the finalizer (`op`), or none (`op`
 * undefined: the scenario comes from the CONFIG_PATH file), or the answer to
 * give while it is being deleted.
 */
export async function holdOperator(
  deps: Pick<EngineDeps, 'store' | 'config' | 'log'>,
  scenario = deps.config.scenarioName,
): Promise<{ op: CascadeAutoOperator | undefined } | Outcome> {
  for (let attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
    const op = await deps.store.getOperator(scenario);
    const gate = operatorGate(op);
    if (gate.kind === 'absent') return { op: undefined };
    if (gate.kind === 'deleting') return unavailable(gate.reason);
    if (gate.kind === 'held') return { op: gate.op };
    try {
      const held = await deps.store.writeOperatorFinalizers(gate.op, gate.finalizers);
      deps.log.info(
        { operator: held.metadata.name },
        'finalizer added to the CascadeAutoOperator before its first run',
      );
      return { op: held };
    } catch (error) {
      // Changed meanwhile (counters, the janitor adding it too, a deletion) or gone: look again.
      const kind = apiErrorKind(error);
      if (kind !== 'conflict' && kind !== 'not-found') throw error;
      await conflictPause(attempt);
    }
  }
  return unavailable(
    `CascadeAutoOperator ${scenario}: its finalizer could not be added after ${HOLD_ATTEMPTS} attempts, retry`,
  );
}
