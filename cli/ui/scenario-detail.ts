// A scenario with the figures of its runs, from what the watches keep. Pure.
import type { ScenarioDetail } from './protocol.ts';
import type { UiState } from './state.ts';
import { moduleDurations, runsPerHour } from './stats.ts';
import { scenarioSummary, type OperatorObject } from './summary.ts';

export function scenarioDetail(state: UiState, op: OperatorObject, now: number): ScenarioDetail {
  const scenario = scenarioSummary(op);
  const runs = [...state.runs.values()].filter(
    (r) => r.metadata.namespace === scenario.namespace && r.spec?.scenarioname === scenario.name,
  );
  return { scenario, perHour: runsPerHour(runs, now), modules: moduleDurations(runs, scenario.modules) };
}
