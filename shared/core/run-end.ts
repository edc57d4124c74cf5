// What a run that ended still owes, from its stored status alone: its end
// recorded, its slot on the CascadeAutoOperator freed (once: `counted`), and, when a K_SINK is
// set, its run-end CloudEvent (owed until `notified`). The event is an outbox
// entry in the run's own status: whoever sees it owed (the delivery that ended
// the run, a redelivery, the janitor) sends it again, with the same id.
import { isTerminalPhase, type CascadeRunStatus } from '../api/cascade-run.ts';
import type { Action } from './types.ts';

/**
 * The end's actions, FinishRun before SendRunEndEvent. A run notified (or
 * counted and notified by an older version, which wrote only `notified`) owes
 * nothing. A process without K_SINK leaves an owed event to one that has it.
 */
export function endActions(status: CascadeRunStatus, sink: boolean): Action[] {
  if (!isTerminalPhase(status.phase) || status.notified) return [];
  const { phase } = status;
  const actions: Action[] = [];
  if (!status.counted) actions.push({ type: 'FinishRun', phase, eventOwed: sink });
  if (sink) actions.push({ type: 'SendRunEndEvent', phase });
  return actions;
}

/** The run's end is recorded, its slot freed (an older version wrote only `notified`); the counters are a tally of phases and need no mark. */
export function isCounted(status: CascadeRunStatus | undefined): boolean {
  return Boolean(status?.counted || status?.notified);
}
