// API cost per client, from the local API server's audit log
// (local/cluster/audit-policy.yaml). Each client talks to the API server as its
// own identity, so the function's requests are told from the Job controller's.
// The function, the ApiServerSource stand-in and the janitor run as their
// ServiceAccounts (install.ts), the bench's own driver as the admin user.
// Counted per run and per step transition for a batch of runs, beside the
// targets in bench/README.md, and the marginal cost of one more step.
import {
  auditLinesSince,
  auditMark,
  countByClient,
  perUnitRequests,
  type ClientRequests,
} from '../test/support/audit-log.ts';
import type { ControlPlane } from './control-plane.ts';
import { runRequest, scenario, type Install } from './install.ts';

export interface ApiCost {
  modules: number;
  runs: number;
  /** Runs in flight at once (closed loop). */
  concurrency: number;
  /** Step transitions per run: the first Job's start, each hand-off, the end (N+1). */
  stepTransitionsPerRun: number;
  /** Client label (install.ts identities) → its requests per run. */
  perRun: Record<string, ClientRequests>;
  /** The function's requests per step transition. */
  functionPerTransition: ClientRequests;
  /** The ApiServerSource's changes sent to the Broker (Jobs and CascadeRuns), per run. */
  sourceDeliveriesPerRun: number;
  /** Create the run, N+1 status writes (start, each hand-off, end), N Job creates, one delete of the run's Jobs. */
  lowerBoundWritesPerRun: number;
}

/** The targets for the function's own requests, as bench/README.md gives them. */
export const TARGETS = { requestsPer3ModuleRun: 17, eventsPerTransition: 1, readsPerTransition: 1 } as const;

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

export async function apiCost(
  cp: ControlPlane,
  inst: Install,
  modules: number,
  runs: number,
  concurrency: number,
): Promise<ApiCost> {
  await inst.setScenario(scenario(modules, 0));
  // Steady state: the scenario change just made left the function's copy of
  // the operator (its last counter write) stale, so its next counter write
  // reads the operator again; one run outside the count takes that read.
  await runBatch(inst, `warm${modules}x${concurrency}`, 1, 1);
  await new Promise((r) => setTimeout(r, 1000));
  const mark = auditMark(cp.auditLog);
  const delivered = inst.sourceDeliveries();
  await runBatch(inst, `cost${modules}x${concurrency}`, runs, Math.min(concurrency, runs));
  // The last Jobs' deletions still come back as events for the function to
  // look at, and the audit log is written asynchronously.
  await new Promise((r) => setTimeout(r, 3000));
  const counts = countByClient(auditLinesSince(cp.auditLog, mark), inst.identities);
  const transitions = modules + 1;
  return {
    modules,
    runs,
    concurrency,
    stepTransitionsPerRun: transitions,
    perRun: Object.fromEntries(Object.entries(counts).map(([label, c]) => [label, perUnitRequests(c, runs)])),
    functionPerTransition: perUnitRequests(
      counts.function ?? { reads: 0, writes: 0, events: 0, byVerb: {} },
      runs * transitions,
    ),
    sourceDeliveriesPerRun: (inst.sourceDeliveries() - delivered) / runs,
    lowerBoundWritesPerRun: 2 * modules + 3,
  };
}

/** The function's extra requests of one more step: (cost of a run of b steps − of a steps) / (b − a). */
export function marginalPerStep(a: ApiCost, b: ApiCost): { reads: number; writes: number; events: number } {
  const steps = b.modules - a.modules;
  const fa = a.perRun.function;
  const fb = b.perRun.function;
  if (!fa || !fb) return { reads: Number.NaN, writes: Number.NaN, events: Number.NaN };
  return {
    reads: (fb.reads - fa.reads) / steps,
    writes: (fb.writes - fa.writes) / steps,
    events: (fb.events - fa.events) / steps,
  };
}
