// A run's two marks of its concurrency slot on the CascadeAutoOperator,
// `slotReleased` and `resumeSlotTaken`, formerly `counted` and
// `resumeCounted`. Until v1beta1 each is written under both names, and the
// old name is read first when present: an older replica writes only that one.
// See docs/adr/0006-status-field-names.md.
import type { CascadeRunStatus } from './run-status.ts';

/** The ended attempt's slot is released, or it held none. */
export function slotReleased(status: CascadeRunStatus | undefined): boolean {
  return status?.counted ?? status?.slotReleased ?? false;
}

/** The last resume whose slot is taken, 0 for none. */
export function resumeSlotTaken(status: CascadeRunStatus | undefined): number {
  return status?.resumeCounted ?? status?.resumeSlotTaken ?? 0;
}

/** Writes `slotReleased` under both names. */
export function setSlotReleased(status: CascadeRunStatus, released: boolean): void {
  status.slotReleased = released;
  status.counted = released;
}

/** Writes `resumeSlotTaken` under both names. */
export function setResumeSlotTaken(status: CascadeRunStatus, resume: number): void {
  status.resumeSlotTaken = resume;
  status.resumeCounted = resume;
}

/** `status` with each mark it has under both names, as read: every status write of this release leaves them equal. */
export function withBothNames(status: CascadeRunStatus): CascadeRunStatus {
  const next = { ...status };
  if (status.counted !== undefined || status.slotReleased !== undefined) setSlotReleased(next, slotReleased(status));
  if (status.resumeCounted !== undefined || status.resumeSlotTaken !== undefined)
    setResumeSlotTaken(next, resumeSlotTaken(status));
  return next;
}
