// The janitor's part of exactly-once counting: it unpins the keys a crash
// left pinned (core/pins.ts). Each key's run is read after the operator, so
// a mark written before the pin was seen is seen too.
import type { CounterChange } from '../../core/counters.ts';
import { keySettled, markOf, pinCandidates } from '../../core/pins.ts';
import type { EngineDeps } from '../deps.ts';
import { writeCounters } from './operator-counters.ts';

/** Unpins the settled keys of each scenario's operator, in one write per operator; the number unpinned. */
export async function unpinSettled(deps: EngineDeps, scenarios: ReadonlySet<string>): Promise<number> {
  let unpinned = 0;
  for (const scenario of scenarios) {
    const op = await deps.store.getOperator(scenario);
    const marks: CounterChange[] = [];
    for (const key of op?.status?.unmarked ?? []) {
      const candidates = pinCandidates(key);
      const readings = await Promise.all(
        candidates.map(async (candidate) => ({ candidate, run: await deps.store.getRun(candidate.run) })),
      );
      const mark = markOf(key, candidates);
      if (mark && keySettled(readings)) marks.push(mark);
    }
    if (marks.length === 0) continue;
    await writeCounters(deps, marks, {}, scenario);
    deps.log.info({ scenario, keys: marks.length }, 'keys left pinned by a crash unpinned');
    unpinned += marks.length;
  }
  return unpinned;
}
