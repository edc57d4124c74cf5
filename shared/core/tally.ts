// The CascadeAutoOperator's counters as a function of its runs: each run is
// counted where its phase puts it now, as the Job controller counts a Job's
// pods. Nothing is incremented, so no event, duplicate or lost, can count a
// run twice or not at all; a write only ever publishes this function of what
// its writer saw (docs/architecture.md, "Counters"). Pure.
import type { CaoResult, CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun, RunPhase } from '../api/cascade-run.ts';

/** What of a run the counters need: its scenario, its phase, and when it ended. */
export interface RunState {
  name: string;
  scenario: string;
  phase: RunPhase | undefined;
  /** completionTime of an ended run. */
  ended?: string | undefined;
}

export type Counts = Required<
  Pick<CascadeAutoOperatorStatus, 'active' | 'queued' | 'succeeded' | 'failed' | 'cancelled' | 'result'>
>;

/** Where a phase counts; a run with no phase yet is created and not queued: active, as the Go controller counted it. */
const WHERE = {
  Queued: 'queued',
  Pending: 'active',
  Running: 'active',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const satisfies Record<RunPhase, keyof Counts>;

const RESULT = { Succeeded: 'Success', Failed: 'Fail', Cancelled: 'Cancelled' } as const;

/** The run's state for the counters; undefined for a run being deleted, which counts nowhere. */
export function runState(run: CascadeRun, scenario: string): RunState | undefined {
  if (run.metadata.deletionTimestamp) return undefined;
  return { name: run.metadata.name, scenario, phase: run.status?.phase, ended: run.status?.completionTime };
}

/**
 * The counters of one scenario's runs. `result` is the outcome of the run that
 * ended last; with no ended run left, the one `before` shows.
 */
export function tally(runs: Iterable<RunState>, before?: CascadeAutoOperatorStatus): Counts {
  const c: Counts = { active: 0, queued: 0, succeeded: 0, failed: 0, cancelled: 0, result: before?.result ?? '' };
  let last: RunState | undefined;
  for (const run of runs) {
    c[WHERE[run.phase ?? 'Pending']] += 1;
    const phase = run.phase;
    if ((phase === 'Succeeded' || phase === 'Failed' || phase === 'Cancelled') && (!last || later(run, last))) {
      last = run;
      c.result = RESULT[phase] satisfies CaoResult;
    }
  }
  return c;
}

/** Ended after `other`; the same instant is ordered by name, so that every writer picks the same run. */
function later(run: RunState, other: RunState): boolean {
  const a = run.ended ?? '';
  const b = other.ended ?? '';
  return a !== b ? a > b : run.name > other.name;
}

/** Whether `status` shows other counters than `counts`. */
export function differs(status: CascadeAutoOperatorStatus | undefined, counts: Counts): boolean {
  return (Object.keys(counts) as (keyof Counts)[]).some(
    (k) => (status?.[k] ?? (k === 'result' ? '' : 0)) !== counts[k],
  );
}
