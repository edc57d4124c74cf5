// A run under its scenario's concurrency limit: it waits in phase `Queued`
// (condition Succeeded Unknown, reason Queued) until the operator's admission
// (concurrency-limit.ts, told to decide() as `input.admission`) gives it a slot, then
// starts as any run does. A queued run has no Job, no start time and no
// deadline running. Pure.
import { setSucceeded } from './conditions.ts';
import type { Draft } from './draft.ts';

const QUEUED_MESSAGE = 'waiting for a slot: the scenario runs spec.maxConcurrentRuns runs at once';

/** True when the run waits in the queue: the decision ends here. */
export function holdQueued(d: Draft): boolean {
  const before = d.input.run.status?.phase;
  if (before !== undefined && before !== 'Queued') return false;
  const admission = d.input.admission ?? (before === 'Queued' ? 'queued' : 'admitted');
  if (admission === 'admitted') {
    if (before === 'Queued') {
      d.status.phase = 'Pending';
      d.status.startTime = d.input.now;
      setSucceeded(
        d.status,
        { status: 'Unknown', reason: 'Pending', message: 'a slot is free: waiting for the first module' },
        d.input.now,
      );
    }
    return false;
  }
  d.status.phase = 'Queued';
  delete d.status.startTime;
  setSucceeded(d.status, { status: 'Unknown', reason: 'Queued', message: QUEUED_MESSAGE }, d.input.now);
  if (d.input.fact.kind === 'ModuleResult') d.verdict = 'not-started';
  return true;
}
