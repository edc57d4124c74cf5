// The end of a run, done once however often it is asked:
// - its concurrency slot released on the CascadeAutoOperator (when it holds
//   one), then `status.slotReleased`, so that it is not asked again; the
//   counters follow from the runs' phases (counts-writer.ts);
// - the run-end CloudEvent to K_SINK, at least once, with a stable id for
//   consumers to dedupe. It is owed in the run's status until
//   `status.notified` records it sent. The function sends it after
// its reply; the janitor, which answers no one, before it goes on (outbox.ts).
import pRetry from 'p-retry';
import {
  CONDITION_SUCCEEDED,
  type CascadeRun,
  type CascadeRunStatus,
  type TerminalPhase,
} from '../../api/cascade-run.ts';
import { RUN_CANCELLED, RUN_FAILED, RUN_SUCCEEDED, type RunEndEvent } from '../../api/events.ts';
import {
  resumeSlotTaken,
  setResumeSlotTaken,
  setSlotReleased,
  slotReleased,
  withBothNames,
} from '../../api/slot-marks.ts';
import { apiErrorKind } from '../../kube/errors.ts';
import { conflictPause } from './conflict-pause.ts';
import type { EngineDeps } from '../deps.ts';
import { slotChange } from '../operator/admission-writes.ts';

const MAX_ATTEMPTS = 10;

/** `<run uid>-<phase>`, and `-r<N>` after N resumes: unique per outcome, the same on every send of one. */
export function runEndEventId(run: CascadeRun, phase: TerminalPhase): string {
  const resumes = run.status?.resumes ?? 0;
  return `${run.metadata.uid ?? run.metadata.name}-${phase.toLowerCase()}${resumes > 0 ? `-r${resumes}` : ''}`;
}
const EVENT_TYPES = {
  Succeeded: RUN_SUCCEEDED,
  Failed: RUN_FAILED,
  Cancelled: RUN_CANCELLED,
} as const satisfies Record<TerminalPhase, RunEndEvent['type']>;

/** The scenario (CascadeAutoOperator) a run was started under: its counters, its queue, its events' source. */
export function scenarioOf(deps: Pick<EngineDeps, 'config'>, run: CascadeRun): string {
  return run.spec.scenarioname || deps.config.scenarioName;
}

export function runEndEvent(
  deps: Pick<EngineDeps, 'config' | 'now'>,
  run: CascadeRun,
  phase: TerminalPhase,
): RunEndEvent {
  const s = run.status ?? {};
  return {
    id: runEndEventId(run, phase),
    type: EVENT_TYPES[phase],
    source: `/cascade/${deps.config.namespace}/${scenarioOf(deps, run)}`,
    subject: run.metadata.name,
    time: s.completionTime ?? deps.now().toISOString(),
    data: {
      runname: run.metadata.name,
      iuid: run.spec.pid,
      oname: run.spec.ob,
      sname: run.spec.src,
      phase,
      info: s.info,
      result: s.result ?? [],
      reason: s.conditions?.find((c) => c.type === CONDITION_SUCCEEDED)?.reason,
      startTime: s.startTime,
      completionTime: s.completionTime,
      modules: (s.modules ?? []).map((m) => ({
        name: m.name,
        phase: m.phase,
        result: m.result,
        startTime: m.startTime,
        completionTime: m.completionTime,
      })),
    },
  };
}

/** What a status write records: the slot released, the event sent, resume number `resumeSlotTaken` given its slot. */
export interface Marks {
  slotReleased?: boolean;
  notified?: boolean;
  resumeSlotTaken?: number;
}

/** The marks only move forward: a run notified by another process meanwhile is not made to owe its event again. */
export function withMarks(status: CascadeRunStatus, marks: Marks): CascadeRunStatus {
  const next = withBothNames(status);
  if (marks.slotReleased) setSlotReleased(next, true);
  if (marks.notified !== undefined && next.notified !== true) next.notified = marks.notified;
  if (marks.resumeSlotTaken !== undefined)
    setResumeSlotTaken(next, Math.max(marks.resumeSlotTaken, resumeSlotTaken(next)));
  return next;
}

/** `next` records what `status` records already, under the names read (slot-marks.ts). */
function sameMarks(status: CascadeRunStatus, next: CascadeRunStatus): boolean {
  return (
    slotReleased(next) === slotReleased(status) &&
    next.notified === status.notified &&
    resumeSlotTaken(next) === resumeSlotTaken(status)
  );
}

/** Marks are of one outcome: a run made anew, or resumed since, is another. */
function sameOutcome(a: CascadeRun, b: CascadeRun): boolean {
  return a.metadata.uid === b.metadata.uid && (a.status?.resumes ?? 0) === (b.status?.resumes ?? 0);
}

/** Writes `marks` into the run's status, reloading on conflict; leaves alone a run that has them, is gone, was made anew or resumed since. */
async function mark(deps: EngineDeps, run: CascadeRun, marks: Marks): Promise<CascadeRun> {
  let current: CascadeRun | undefined = run;
  for (let attempt = 1; current && attempt <= MAX_ATTEMPTS; attempt++) {
    if (!sameOutcome(current, run)) return run;
    const status: CascadeRunStatus = current.status ?? {};
    const next = withMarks(status, marks);
    if (sameMarks(status, next)) return current;
    try {
      return await deps.store.writeRunStatus(current, next);
    } catch (error) {
      if (apiErrorKind(error) !== 'conflict') throw error;
      await conflictPause(attempt);
      current = await deps.store.getRun(run.metadata.name);
    }
  }
  if (current) throw new Error(`run ${run.metadata.name}: status still conflicting after ${MAX_ATTEMPTS} attempts`);
  return run;
}

/** Releases the ended attempt's slot, then records it (`slotReleased`), and notified unless the event is owed. */
export async function finishRun(deps: EngineDeps, run: CascadeRun, eventOwed: boolean): Promise<CascadeRun> {
  const change = { kind: 'ended', run: run.metadata.name, attempt: run.status?.resumes } as const;
  await slotChange(deps, change, scenarioOf(deps, run));
  return mark(deps, run, { slotReleased: true, notified: !eventOwed });
}

/** Gives resume number `resumes` its slot, then records it (`resumeSlotTaken`). */
export async function takeResumeSlot(deps: EngineDeps, run: CascadeRun, resumes: number): Promise<CascadeRun> {
  await slotChange(deps, { kind: 'resumed', run: run.metadata.name, attempt: resumes }, scenarioOf(deps, run));
  return mark(deps, run, { resumeSlotTaken: resumes });
}

/** Sends the run-end event, then records it sent; true when both are done, false (owed) when the sink did not take it. */
async function deliver(deps: EngineDeps, run: CascadeRun, event: RunEndEvent, signal?: AbortSignal): Promise<boolean> {
  if (!(await deps.notify(event, signal))) return false;
  // Sent: record it, through an API server outage if need be (sent again, same id, if this never succeeds).
  await pRetry(() => mark(deps, run, { notified: true }), {
    retries: 8,
    minTimeout: 250,
    maxTimeout: 10_000,
    ...(signal ? { signal } : {}),
  });
  return true;
}

/** The run as stored when it still owes the event of this outcome; undefined when it was sent (or the run is gone, made anew, resumed or moved on). */
async function stillOwing(deps: EngineDeps, run: CascadeRun, phase: TerminalPhase): Promise<CascadeRun | undefined> {
  const current = await deps.store.getRun(run.metadata.name);
  if (!current || !sameOutcome(current, run)) return undefined;
  return current.status?.phase === phase && current.status.notified !== true ? current : undefined;
}

/**
 * The function's outbox sends after it returns; the janitor's sends before it returns.
 * This process may have sent and recorded this very event already. The run it was asked with may be older than that
 * record. Then it is read again, and the event is sent again only if the run still owes it, say when marked owed again.
 */
export async function sendRunEndEvent(deps: EngineDeps, run: CascadeRun, phase: TerminalPhase): Promise<void> {
  const event = runEndEvent(deps, run, phase);
  const again = deps.outbox.done(event.id);
  await deps.outbox.send(event.id, async (signal) => {
    const owing = again ? await stillOwing(deps, run, phase) : run;
    return owing ? deliver(deps, owing, event, signal) : true;
  });
}
