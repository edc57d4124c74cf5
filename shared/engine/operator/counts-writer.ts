// Writes each scenario's counters on its CascadeAutoOperator as a function of
// its runs (core/tally.ts). In the function, the process that holds the
// counters' Lease writes them from the runs its watch shows. The janitor
// writes them from the runs its sweep listed. A write is made only when the counters shown differ,
// carries the operator's resourceVersion, and on a 409 is computed again from
// the operator read anew. A write that fails is tried again after a pause,
// whether or not a run changes. See docs/architecture.md, "Counters".
import type { CascadeAutoOperator } from '../../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../api/cascade-run.ts';
import { differs, runState, tally, type RunState } from '../../core/tally.ts';
import { apiErrorKind } from '../../kube/errors.ts';
import { isLater } from '../../kube/resource-version.ts';
import type { EngineDeps } from '../deps.ts';
import { scenarioOf } from '../run/finish-run.ts';
import { cacheOf, type OperatorCaches } from './admission-writes.ts';

const WRITE_ATTEMPTS = 10;
/** The first pause before a failed counters write is tried again, doubled each time it fails again, up to the most. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * Writes `runs`' counters on `scenario`'s operator when they differ from what
 * it shows, starting from `op` (read when none): the operator as written, or
 * undefined when there is no operator to count on.
 */
export async function writeTally(
  deps: Pick<EngineDeps, 'store'>,
  scenario: string,
  runs: Iterable<RunState>,
  op?: CascadeAutoOperator,
): Promise<CascadeAutoOperator | undefined> {
  const states = [...runs];
  let copy = op ?? (await deps.store.getOperator(scenario));
  for (let attempt = 1; copy && attempt <= WRITE_ATTEMPTS; attempt++) {
    const counts = tally(states, copy.status);
    if (!differs(copy.status, counts)) return copy;
    try {
      return await deps.store.writeOperatorStatus(copy, { ...copy.status, ...counts });
    } catch (error) {
      const kind = apiErrorKind(error);
      if (kind !== 'conflict' && kind !== 'not-found') throw error;
      copy = await deps.store.getOperator(scenario);
    }
  }
  return copy;
}

/** The state of each run seen, by scenario, each from the latest copy: a list, then the watch's changes. */
export interface RunIndex {
  /** Takes a copy in; returns the scenario whose counters it may change, if any. */
  put(run: CascadeRun, deleted: boolean): string | undefined;
  /** Replaces everything with a list of every run. */
  reset(runs: readonly CascadeRun[]): void;
  of(scenario: string): Iterable<RunState>;
}

export function runIndex(deps: Pick<EngineDeps, 'config'>): RunIndex {
  const byScenario = new Map<string, Map<string, RunState>>();
  const versions = new Map<string, string | undefined>();
  const stale = (run: CascadeRun, deleted: boolean) => {
    const seen = versions.get(run.metadata.name);
    return !deleted && seen !== undefined && !isLater(run.metadata.resourceVersion, seen);
  };
  const runsOf = (scenario: string) => {
    let runs = byScenario.get(scenario);
    if (!runs) byScenario.set(scenario, (runs = new Map()));
    return runs;
  };
  const put = (run: CascadeRun, deleted: boolean) => {
    if (stale(run, deleted)) return undefined;
    const name = run.metadata.name;
    if (deleted) versions.delete(name);
    else versions.set(name, run.metadata.resourceVersion);
    const scenario = scenarioOf(deps, run);
    const runs = runsOf(scenario);
    const before = runs.get(name);
    const state = deleted ? undefined : runState(run, scenario);
    if (state) runs.set(name, state);
    else runs.delete(name);
    const same = before === state || (before && state && before.phase === state.phase && before.ended === state.ended);
    return same ? undefined : scenario;
  };
  return {
    put,
    reset(runs) {
      byScenario.clear();
      versions.clear();
      for (const run of runs) put(run, false);
    },
    of: (scenario) => byScenario.get(scenario)?.values() ?? [],
  };
}

export interface CountsWriter {
  /** A change of a run: shown by the watch, or written by this process. */
  run(change: 'ADDED' | 'MODIFIED' | 'DELETED', run: CascadeRun): void;
  operator(op: CascadeAutoOperator): void;
  /** The watch of runs opened or closed: the index is listed again when it opens. */
  runsOpen(open: boolean): void;
  /** The Lease's hold began or ended. */
  held(held: boolean): void;
}

/** Calls `again` after a pause that doubles from RETRY_FIRST_MS to RETRY_MAX_MS while it is asked for again; `settled` starts over. */
function retryPause(again: () => void) {
  const st = { ms: 0, timer: undefined as NodeJS.Timeout | undefined };
  return {
    later(): void {
      if (st.timer) return;
      st.ms = Math.min(Math.max(st.ms * 2, RETRY_FIRST_MS), RETRY_MAX_MS);
      st.timer = setTimeout(() => {
        st.timer = undefined;
        again();
      }, st.ms);
      st.timer.unref();
    },
    settled(): void {
      st.ms = 0;
    },
  };
}

/** Writes one scenario's counters from its runs; false when they could not be made to show them. */
async function writeScenario(
  deps: Pick<EngineDeps, 'store'>,
  caches: OperatorCaches,
  states: Iterable<RunState>,
  scenario: string,
): Promise<boolean> {
  const cache = cacheOf(caches, scenario);
  const runs = [...states];
  const written = await writeTally(deps, scenario, runs, cache.op);
  if (written) cache.op = written;
  return !written || !differs(written.status, tally(runs, written.status));
}

/**
 * The function's writer of the counters. It writes only while this process
 * holds the Lease (`leader`) and its index is whole: listed when the hold
 * began and each time the watch opens, kept since by the watch and by this
 * process's own writes. One write is in flight at a time; the scenarios
 * changed meanwhile are written next, from the index as it is then.
 */
export function countsWriter(
  deps: Pick<EngineDeps, 'store' | 'config' | 'log'>,
  caches: OperatorCaches,
  leader: () => boolean,
): CountsWriter {
  const index = runIndex(deps);
  const dirty = new Set<string>();
  const state = { whole: false, busy: false };
  const ready = () => state.whole && leader();
  // A write that failed is tried again after a pause: no later change of a run may come.
  const retry = retryPause(() => void drain());

  /** Lists the runs if the index is not whole, then writes every scenario changed; returns those left unwritten. */
  async function writeChanged(): Promise<Set<string>> {
    const unsettled = new Set<string>();
    if (!state.whole && leader()) {
      index.reset(await deps.store.listRuns());
      for (const scenario of caches.keys()) dirty.add(scenario);
      state.whole = true;
    }
    for (let next = [...dirty][0]; ready() && next !== undefined; next = [...dirty][0]) {
      dirty.delete(next);
      if (!(await writeScenario(deps, caches, index.of(next), next))) unsettled.add(next);
    }
    return unsettled;
  }

  async function drain(): Promise<void> {
    if (state.busy) return;
    state.busy = true;
    let unsettled: Set<string> | undefined;
    try {
      unsettled = await writeChanged();
    } catch (error) {
      deps.log.warn({ err: error }, 'counters not written: written again from a new list of the runs');
      state.whole = false;
    } finally {
      state.busy = false;
    }
    for (const scenario of unsettled ?? []) dirty.add(scenario);
    if (!unsettled || unsettled.size > 0) retry.later();
    // what changed meanwhile: a scenario marked, or the index no longer whole (the watch opened again, the hold began)
    else if (leader() && (dirty.size > 0 || !state.whole)) void drain();
    else retry.settled();
  }

  const mark = (scenario: string | undefined) => {
    if (scenario !== undefined) dirty.add(scenario);
    void drain();
  };
  return {
    run: (change, run) => mark(index.put(run, change === 'DELETED')),
    operator: (op) => mark(op.metadata.name),
    runsOpen(open) {
      if (open) state.whole = false;
      void drain();
    },
    held(held) {
      state.whole = false;
      if (held) void drain();
    },
  };
}
