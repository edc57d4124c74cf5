// What a run that ended still owes, from its stored status alone: its slot on
// the CascadeAutoOperator released (once: `slotReleased`), and, when a K_SINK is
// set, its run-end CloudEvent (owed until `notified`). The event is an outbox
// entry in the run's own status: whoever sees it owed (the delivery that ended
// the run, a redelivery, the janitor) sends it again, with the same id.
import { isTerminalPhase, type CascadeRunStatus } from '../api/cascade-run.ts';
import { slotReleased } from '../api/slot-marks.ts';
import type { Action } from './types.ts';

/**
 * The end's actions, FinishRun before SendRunEndEvent. A run notified owes
 * nothing: an older version wrote only `notified`. A process without K_SINK
 * leaves an owed event to one that has it.
 */
export function endActions(status: CascadeRunStatus, sink: boolean): Action[] {
  if (!isTerminalPhase(status.phase) || status.notified) return [];
  const { phase } = status;
  const actions: Action[] = [];
  if (!slotReleased(status)) actions.push({ type: 'FinishRun', phase, eventOwed: sink });
  if (sink) actions.push({ type: 'SendRunEndEvent', phase });
  return actions;
}

/** The ended attempt's slot is released; an older version wrote only `notified`. The counters need no mark: they are a tally of phases. */
export function isSlotReleased(status: CascadeRunStatus | undefined): boolean {
  return slotReleased(status) || Boolean(status?.notified);
}
