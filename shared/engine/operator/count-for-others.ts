// The holder's side of one writer per operator (core/counter-holder.ts): it
// counts what each run owes its operator, for the process that moved the run.
// It keeps the runs that may still owe a start or an end, as its watch of runs
// showed them last, so that a process coming to hold counts those too.
import type { CascadeRun } from '../../api/cascade-run.ts';
import { mayOwe, owedChanges } from '../../core/counter-holder.ts';
import type { WatchChange } from '../../kube/watch-stream.ts';
import type { EngineDeps } from '../deps.ts';
import { scenarioOf } from '../run/finish-run.ts';
import type { CounterHolder } from './counter-holder.ts';

/** Most runs kept that may still owe a count; the oldest go first. The janitor counts what is left. */
const PENDING_MAX = 10_000;

/**
 * Each change of a run the watch shows goes to `run`. While this process
 * holds the run's scenario, what the run owes is counted here. A write that
 * fails is left to the process that moved the run: it writes the change itself
 * once its wait is over. The janitor counts what both miss.
 */
export function countForOthers(
  deps: Pick<EngineDeps, 'counter' | 'config' | 'log'>,
  holder: CounterHolder,
): { run: (change: WatchChange, run: CascadeRun) => void } {
  const pending = new Map<string, CascadeRun>();

  const countOwed = (run: CascadeRun, scenario: string) => {
    const op = holder.copy(scenario);
    if (!op) return;
    for (const owed of owedChanges(run, op.status))
      deps
        .counter(owed, scenario)
        .catch((error: unknown) =>
          deps.log.warn({ run: run.metadata.name, kind: owed.kind, err: error }, 'a count for another process failed'),
        );
  };

  holder.onHold((scenario) => {
    for (const run of pending.values()) if (scenarioOf(deps, run) === scenario) countOwed(run, scenario);
  });

  return {
    run(change, run) {
      const name = run.metadata.name;
      pending.delete(name);
      if (change === 'DELETED') return;
      if (mayOwe(run)) pending.set(name, run);
      if (pending.size > PENDING_MAX) pending.delete(pending.keys().next().value!);
      const scenario = scenarioOf(deps, run);
      if (holder.holder(scenario) === 'self') countOwed(run, scenario);
    },
  };
}
