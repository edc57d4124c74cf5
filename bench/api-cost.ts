// API cost from the API server's own apiserver_request_total, before and after
// a batch of runs: requests per run and per step by resource and verb, and the
// marginal cost of one more step (the steady state), against the lower bound
// of writes a run cannot avoid.
import type { ControlPlane } from './control-plane.ts';
import { runRequest, scenario, type Install } from './install.ts';
import { diffSamples, perUnit, requestCounts, summarizeCost, type CostSummary } from './prom.ts';

export interface ApiCost {
  modules: number;
  runs: number;
  perRun: CostSummary;
  perStep: CostSummary;
  /** Create the run, N+1 status writes (start, each hand-off, end), N Job creates, N Job deletes. */
  lowerBoundWritesPerRun: number;
}

export async function runBatch(inst: Install, tag: string, runs: number, concurrency: number): Promise<string[]> {
  const names: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      next++;
      const r = await inst.send(runRequest(tag));
      if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
      const run = r.run;
      names.push(run);
      await inst.recorder.waitEnded(run, 300_000);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return names;
}

export async function apiCost(cp: ControlPlane, inst: Install, modules: number, runs: number): Promise<ApiCost> {
  await inst.setScenario(scenario(modules, 0));
  await new Promise((r) => setTimeout(r, 1000));
  const before = await cp.requests();
  await runBatch(inst, `cost${modules}`, runs, Math.min(5, runs));
  // The last Jobs' deletions still come back as events for the function to look at.
  await new Promise((r) => setTimeout(r, 2000));
  const after = await cp.requests();
  const total = summarizeCost(requestCounts(diffSamples(before, after)));
  return { modules, runs, perRun: perUnit(total, runs), perStep: perUnit(total, runs * modules), lowerBoundWritesPerRun: 3 * modules + 2 };
}

/** Extra requests of one more step: (cost of a run of b steps − of a steps) / (b − a). */
export function marginalPerStep(a: ApiCost, b: ApiCost): { reads: number; cascadeWrites: number; events: number } {
  const steps = b.modules - a.modules;
  return {
    reads: (b.perRun.reads - a.perRun.reads) / steps,
    cascadeWrites: (b.perRun.cascadeWrites - a.perRun.cascadeWrites) / steps,
    events: (b.perRun.events - a.perRun.events) / steps,
  };
}
