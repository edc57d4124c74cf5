// Resuming a run that failed (or was cancelled) from the step that stopped it.
// The steps that succeeded stay done: their Jobs are not made again and their
// stage addresses stay the same, so the resumed step reads what its
// predecessor wrote. The stopped step starts a new attempt (trigger Resume),
// and the run is Running again under its name. Idempotent by request id: the
// ids applied are kept (bounded) in status. Pure.
import { RESUME_REQUESTS_MAX, type CascadeRun, type CascadeRunStatus } from '../api/cascade-run.ts';
import { resumeSlotTaken, setSlotReleased } from '../api/slot-marks.ts';
import { ANNOTATION_RESUME_REQUESTED_AT } from '../names.ts';
import { nextAttempt } from './attempts.ts';
import { setSucceeded } from './conditions.ts';
import type { Draft } from './draft.ts';
import type { Action, Fact } from './types.ts';

export type ResumeFact = Extract<Fact, { kind: 'Resume' }>;

/** The phases a run can be resumed from (Cancelled: once cancel exists). */
export const RESUMABLE_PHASES: readonly string[] = ['Failed', 'Cancelled'];

export function isResumable(status: CascadeRunStatus | undefined): boolean {
  return RESUMABLE_PHASES.includes(status?.phase ?? '');
}

/** The kubectl way: the resume-requested-at annotation's value while it differs from the one handled last. */
export function pendingResume(run: CascadeRun): string | undefined {
  const value = run.metadata.annotations?.[ANNOTATION_RESUME_REQUESTED_AT];
  if (!value || value === run.status?.lastHandledResume) return undefined;
  return value;
}

/** The fact of an annotation's resume request: its value is its id. */
export function annotationResume(value: string): ResumeFact {
  return { kind: 'Resume', requestId: `annotation:${value}`, annotation: value };
}

function restartStep(d: Draft): number | undefined {
  const rec = d.records.find((r) => r.phase !== 'Succeeded');
  if (!rec) return undefined;
  if (rec.phase === 'Pending' && !rec.startTime) {
    // Never started, or waiting for a retry when the run ended: it starts now.
    delete rec.retryAt;
    if ((rec.attempt ?? 1) > 1) rec.trigger = 'Resume';
  } else {
    nextAttempt(d, rec, 'Resume');
  }
  return rec.step;
}

/**
 * The id the request is kept under, and whether it was applied already. A
 * plain body without an id is known by its digest and the resume it asks
 * for: delivered again while that resume goes on, it is a duplicate; once
 * the run has failed again, the same body resumes it again.
 */
function requestId(fact: ResumeFact, s: CascadeRunStatus): { id: string; seen: boolean } {
  const ids = s.resumeRequests ?? [];
  if (fact.requestId !== undefined) return { id: fact.requestId, seen: ids.includes(fact.requestId) };
  const resumes = s.resumes ?? 0;
  const id = `body:${fact.bodyDigest ?? ''}:r${resumes}`;
  const inThisResume = !isResumable(s) && ids.includes(`body:${fact.bodyDigest ?? ''}:r${resumes - 1}`);
  return { id, seen: ids.includes(id) || inThisResume };
}

export function applyResume(d: Draft, fact: ResumeFact): void {
  const s = d.status;
  if (fact.annotation !== undefined) s.lastHandledResume = fact.annotation;
  const request = requestId(fact, s);
  if (request.seen) {
    d.verdict = 'duplicate';
    return;
  }
  if (!isResumable(s)) {
    d.verdict = 'not-resumable';
    return;
  }
  const { now } = d.input;
  const from = s.phase;
  const step = restartStep(d);
  s.phase = 'Running';
  s.resumedFrom = from;
  s.resumes = (s.resumes ?? 0) + 1;
  s.resumedAt = now;
  s.resumeRequests = [...(s.resumeRequests ?? []), request.id].slice(-RESUME_REQUESTS_MAX);
  setSlotReleased(s, false);
  s.notified = false;
  for (const key of ['completionTime', 'info'] as const) delete s[key];
  const where = step === undefined ? 'with no step left' : `from step ${step + 1} (${d.records[step]!.name})`;
  const message = `resumed ${where} after it ${from === 'Failed' ? 'failed' : 'was cancelled'} (resume ${s.resumes})`;
  setSucceeded(s, { status: 'Unknown', reason: 'Running', message }, now);
  d.transitions.push({
    kind: 'RunResumed',
    ...(step === undefined ? {} : { step, module: d.records[step]!.name }),
    message,
  });
  d.verdict = 'resumed';
}

/** A resume not yet given its slot on the CascadeAutoOperator: owed until `resumeSlotTaken` says so. The counters follow the run's phase. */
export function resumeActions(status: CascadeRunStatus): Action[] {
  const resumes = status.resumes ?? 0;
  if (resumes <= resumeSlotTaken(status) || !status.resumedFrom) return [];
  return [{ type: 'TakeResumeSlot', resumes }];
}
