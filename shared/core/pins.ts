// The keys pinned in a CascadeAutoOperator's `status.unmarked` that a crash
// left behind: a process died after its run's mark and before the write that
// unpins the key. The janitor unpins a key once its run shows the mark, has
// moved past it, or is gone (docs/architecture.md, "Counters"). Pure.
import type { CascadeRun } from '../api/cascade-run.ts';
import { markedKey, type MarkedChange } from './counters.ts';

/** A run and change a pinned key may stand for: an end by default, `of` else. */
export interface PinCandidate {
  run: string;
  resumes: number;
  of?: MarkedChange;
}

const NUMBERED = /^(.+)-r(\d+)$/;

/**
 * The runs and changes a pinned key may stand for. `end:<run>` or
 * `end:<run>-r<N>`: a run's name may itself end in `-r<N>`, so both readings
 * are returned. `resume:<run>-r<N>` always ends in its number.
 */
export function pinCandidates(key: string): PinCandidate[] {
  if (key.startsWith('start:')) return [{ run: key.slice('start:'.length), resumes: 0, of: 'start' }];
  if (key.startsWith('resume:')) {
    const m = NUMBERED.exec(key.slice('resume:'.length));
    return m ? [{ run: m[1]!, resumes: Number(m[2]), of: 'resume' }] : [];
  }
  if (!key.startsWith('end:')) return [];
  const rest = key.slice('end:'.length);
  const out: PinCandidate[] = [{ run: rest, resumes: 0 }];
  const m = NUMBERED.exec(rest);
  if (m && Number(m[2]) > 0) out.push({ run: m[1]!, resumes: Number(m[2]) });
  return out;
}

/**
 * Whether this candidate's change is settled on its run, read after the pin
 * was seen. Gone, always. A start once the run has a phase. A resume once the
 * run records it counted, or was made anew. An end once marked or resumed since.
 */
export function pinSettled(candidate: PinCandidate, run: CascadeRun | undefined): boolean {
  if (!run) return true;
  const status = run.status ?? {};
  const resumes = status.resumes ?? 0;
  if (candidate.of === 'start') return status.phase !== undefined;
  if (candidate.of === 'resume') return resumes < candidate.resumes || (status.resumeCounted ?? 0) >= candidate.resumes;
  return resumes > candidate.resumes || (resumes === candidate.resumes && status.counted === true);
}

/** A key is unpinned when every reading of it is settled: a reading still open keeps it. */
export function keySettled(readings: ReadonlyArray<{ candidate: PinCandidate; run: CascadeRun | undefined }>): boolean {
  return readings.length > 0 && readings.every((r) => pinSettled(r.candidate, r.run));
}

/** The mark that unpins `key`: the one of its readings that gives the key back. */
export function markOf(key: string, candidates: readonly PinCandidate[]) {
  const marks = candidates.map(
    (c) => ({ kind: 'marked', run: c.run, resumes: c.resumes || undefined, of: c.of }) as const,
  );
  return marks.find((m) => markedKey(m) === key);
}
