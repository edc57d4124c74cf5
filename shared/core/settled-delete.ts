// Which decisions may act without a read first, from an event's claims or a
// cached copy of the run. Only one: a decision that changes nothing in the
// status and only deletes the Jobs of a run the copy records as succeeded. A
// succeeded run is never resumed, so none of its Jobs is needed again. A
// forged claim can then do no more than delete, a little early, the Jobs of a
// run that is over. A failed or cancelled copy may have been resumed since:
// its Jobs' delete reads the run first. Pure.
import type { CascadeRun } from '../api/cascade-run.ts';
import type { Action, Decision } from './types.ts';

function settled(run: CascadeRun, action: Action): boolean {
  return action.type === 'DeleteRunJobs' && run.status?.phase === 'Succeeded' && action.run === run.metadata.name;
}

/** True when the decision only deletes the Jobs of a succeeded run. */
export function onlySettledDeletes(run: CascadeRun, decision: Decision): boolean {
  return !decision.changed && decision.actions.length > 0 && decision.actions.every((a) => settled(run, a));
}
