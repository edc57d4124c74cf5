// One writer for a CascadeAutoOperator's counters while several function
// processes run. Each write names its process in `status.writer`. While that
// process's writes keep coming, the others leave their starts and ends to it:
// it counts them from its watch of runs, and they wait until their watch of
// operators shows the keys. One writer meets no 409 (docs/architecture.md,
// "Counters"). Pure.
import type { CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { isTerminalPhase } from '../api/run-status.ts';
import { counterKey, markedKey, type CounterChange } from './counters.ts';
import { pinSettled, type PinCandidate } from './pins.ts';

/** Others leave their counts to a writer whose last write they saw this recently. */
export const HOLD_MS = 10_000;

/**
 * A writer goes on counting for others this much longer than they wait for it,
 * so that a count left to it is never left to no one.
 */
export const HOLD_MARGIN_MS = 5_000;

/** A process waiting for the holder to count its change gives up once the holder's writes stop this long. */
export const WAIT_MS = 5_000;

/**
 * The longest a process waits for the holder to count its change, however busy the holder is: well within the
 * 30 s a Trigger gives each delivery (knative/triggers.yaml).
 */
export const WAIT_CAP_MS = 10_000;

/**
 * Whether a process stops waiting for the holder to count its change, and
 * writes it itself: once another process no longer holds, once the holder's
 * writes stopped WAIT_MS ago (it died), or after WAIT_CAP_MS in all. A busy
 * holder, whose writes keep coming, is waited for.
 */
export function waitOver(w: { holder: Holder; sinceLastWrite: number | undefined; waited: number }): boolean {
  if (w.holder !== 'other' || w.sinceLastWrite === undefined) return true;
  return w.sinceLastWrite >= WAIT_MS || w.waited >= WAIT_CAP_MS;
}

/** The last write of an operator this process's watch showed: who wrote it, and when it was seen. */
export interface LastWrite {
  writer?: string | undefined;
  /** Undefined when the copy came from a list, not a change seen live. */
  seenAt?: number | undefined;
}

/** Who counts for the scenario now, as this process sees it. */
export type Holder = 'self' | 'other' | 'none';

/** The holder, from the last write seen: its writer, while its writes keep coming. */
export function holderOf(last: LastWrite | undefined, self: string, now: number): Holder {
  if (!last?.writer || last.seenAt === undefined) return 'none';
  const age = now - last.seenAt;
  if (last.writer === self) return age < HOLD_MS + HOLD_MARGIN_MS ? 'self' : 'none';
  return age < HOLD_MS ? 'other' : 'none';
}

export type LeftToHolder = Extract<CounterChange, { kind: 'started' | 'ended' | 'marked' }>;

/** The changes a process leaves to the holder: starts and ends, which it waits for, and marks, which the holder reads off runs. */
export function leftToHolder(change: CounterChange): change is LeftToHolder {
  return change.kind === 'started' || change.kind === 'ended' || change.kind === 'marked';
}

/** The pins a run may have settled: its start, its current end, its last resume counted. */
function candidates(run: CascadeRun): PinCandidate[] {
  const name = run.metadata.name;
  const status = run.status ?? {};
  const out: PinCandidate[] = [
    { run: name, resumes: 0, of: 'start' },
    { run: name, resumes: status.resumes ?? 0 },
  ];
  if (status.resumeCounted) out.push({ run: name, resumes: status.resumeCounted, of: 'resume' });
  return out;
}

type Mark = Extract<CounterChange, { kind: 'marked' }>;

/** The mark that unpins a candidate's key. */
function markFor(c: PinCandidate): Mark {
  return { kind: 'marked', run: c.run, resumes: c.resumes || undefined, of: c.of };
}

/** The marks of pins `status` holds that `run` shows settled. */
function marksOwed(run: CascadeRun, status: CascadeAutoOperatorStatus | undefined): Mark[] {
  const pins = new Set(status?.unmarked ?? []);
  return candidates(run)
    .filter((c) => pins.has(markedKey(markFor(c))) && pinSettled(c, run))
    .map(markFor);
}

/**
 * What `run` owes its operator's counters, as `status` shows them: its start
 * while it has no phase, its end once ended and not marked counted, and the
 * marks of pins it settled. A run being deleted owes nothing here.
 */
export function owedChanges(run: CascadeRun, status: CascadeAutoOperatorStatus | undefined): CounterChange[] {
  if (run.metadata.deletionTimestamp) return [];
  const counted = new Set(status?.countedRuns ?? []);
  const phase = run.status?.phase;
  const name = run.metadata.name;
  if (phase === undefined)
    return counted.has(counterKey({ kind: 'started', run: name })) ? [] : [{ kind: 'started', run: name }];
  const out: CounterChange[] = [];
  if (isTerminalPhase(phase) && run.status?.counted !== true) {
    const end = { kind: 'ended', run: name, phase, resumes: run.status?.resumes, uid: run.metadata.uid } as const;
    if (!counted.has(counterKey(end))) out.push(end);
  }
  return [...out, ...marksOwed(run, status)];
}

/** Whether `run` may owe a start or an end, whatever its operator shows: no phase yet, or ended and not marked counted. */
export function mayOwe(run: CascadeRun): boolean {
  return owedChanges(run, undefined).some((c) => c.kind !== 'marked');
}
