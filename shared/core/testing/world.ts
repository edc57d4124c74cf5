// A tiny, pure stand-in for the API server used only by the core's unit tests:
// it applies a decision's actions to a set of Jobs so that sequences of events
// can be played, repeated and reordered. (Kubernetes behaviour itself is tested
// against the real API server under test/.)
import type { CascadeRun, TerminalPhase } from '../../api/cascade-run.ts';
import { setSlotReleased } from '../../api/slot-marks.ts';
import { decide } from '../decide.ts';
import type { ObservedJob } from '../observed-job.ts';
import type { Decision, Fact } from '../types.ts';
import { RUN, input } from './fixtures.ts';

export interface World {
  run: CascadeRun;
  jobs: ObservedJob[];
  /** Every Job creation that really created one (an existing name is refused). */
  created: string[];
  deleted: string[];
}

export function world(run: CascadeRun): World {
  return { run, jobs: [], created: [], deleted: [] };
}

export function deliver(w: World, fact: Fact, now: string): Decision {
  const decision = decide(input(w.run, w.jobs, fact, now));
  for (const a of decision.actions) {
    if (a.type !== 'CreateJob' || w.jobs.some((j) => j.name === a.job.metadata?.name)) continue;
    const name = a.job.metadata?.name ?? '';
    w.jobs.push({ name, run: RUN, step: a.step, state: 'Active', startTime: now, deleting: false });
    w.created.push(name);
  }
  if (decision.changed) w.run = { ...w.run, status: decision.status };
  for (const a of decision.actions) {
    const goes = (j: World['jobs'][number]) =>
      a.type === 'DeleteJob'
        ? j.name === a.name
        : a.type === 'DeleteRunJobs' && !(j.step === a.keep?.step && (j.attempt ?? 1) === a.keep.attempt);
    w.deleted.push(...w.jobs.filter(goes).map((j) => j.name));
    w.jobs = w.jobs.filter((j) => !goes(j));
  }
  const finish = decision.actions.find((a) => a.type === 'FinishRun');
  if (finish) {
    const status = { ...w.run.status, notified: !finish.eventOwed };
    setSlotReleased(status, true);
    w.run = { ...w.run, status };
  }
  return decision;
}

/** The pod of the current step's Job ends. */
export function finishJob(w: World, step: number, state: Exclude<TerminalPhase, 'Cancelled'>, at: string): void {
  w.jobs = w.jobs.map((j) => (j.step === step ? { ...j, state, completionTime: at, done: true } : j));
}
