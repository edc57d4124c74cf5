// The end keys pinned in a CascadeAutoOperator's `status.unmarked` that a
// crash left behind: a process died after its run's `counted` mark and before
// the write that unpins it. The janitor unpins a key once its run shows the
// mark, a later resume, or is gone (docs/architecture.md, "Counters"). Pure.
import type { CascadeRun } from '../api/cascade-run.ts';

/** A run and outcome a pinned key may stand for. */
export interface PinCandidate {
  run: string;
  resumes: number;
}

/**
 * The runs and outcomes `end:<run>` or `end:<run>-r<N>` may stand for. A run's
 * name may itself end in `-r<N>`, so both readings are returned.
 */
export function pinCandidates(key: string): PinCandidate[] {
  if (!key.startsWith('end:')) return [];
  const rest = key.slice('end:'.length);
  const out: PinCandidate[] = [{ run: rest, resumes: 0 }];
  const m = /^(.+)-r(\d+)$/.exec(rest);
  if (m && Number(m[2]) > 0) out.push({ run: m[1]!, resumes: Number(m[2]) });
  return out;
}

/** Whether this candidate's outcome is settled on its run, read after the pin was seen: marked, resumed since, or gone. */
export function pinSettled(candidate: PinCandidate, run: CascadeRun | undefined): boolean {
  if (!run) return true;
  const resumes = run.status?.resumes ?? 0;
  if (resumes > candidate.resumes) return true;
  return resumes === candidate.resumes && run.status?.counted === true;
}

/** A key is unpinned when every reading of it is settled: a reading still open keeps it. */
export function keySettled(readings: ReadonlyArray<{ candidate: PinCandidate; run: CascadeRun | undefined }>): boolean {
  return readings.length > 0 && readings.every((r) => pinSettled(r.candidate, r.run));
}
