// Which decisions may act without a read first, from an event's claims or a
// cached copy of the run. Only one: a decision that changes nothing in the
// status and only deletes Jobs of steps the copy records as succeeded, each by
// the uid recorded for its step. A step attempt that succeeded never needs its
// Job again, whatever the run did since: a resume or a retry makes a new
// attempt with a new Job. A forged claim can then do no more than delete, a
// little early, a Job whose step is over; the uid precondition keeps every
// other Job. Pure.
import type { CascadeRun } from '../api/cascade-run.ts';
import type { Action, Decision } from './types.ts';

function settled(run: CascadeRun, action: Action): boolean {
  if (action.type !== 'DeleteJob' || action.uid === undefined) return false;
  const rec = run.status?.modules?.[action.step];
  return rec !== undefined && rec.jobUid === action.uid && rec.phase === 'Succeeded';
}

/** True when the decision only deletes Jobs of succeeded steps, by their recorded uids. */
export function onlySettledDeletes(run: CascadeRun, decision: Decision): boolean {
  return !decision.changed && decision.actions.length > 0 && decision.actions.every((a) => settled(run, a));
}
