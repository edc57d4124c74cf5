// The janitor: one sweep (in this process, as functions/janitor/main.ts runs
// it) over a namespace holding N live runs, whose pods are never scheduled so
// the runs stay active; its time and the API requests it made.
import pino from 'pino';
import { parseConfig } from '../shared/config.ts';
import { sweep } from '../shared/engine/sweep.ts';
import { connectStore } from '../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../shared/kube/retry.ts';
import type { ControlPlane } from './control-plane.ts';
import { runRequest, type Install } from './install.ts';
import { diffSamples, requestCounts, summarizeCost, type CostSummary } from './prom.ts';

export interface JanitorSweep {
  liveRuns: number;
  sweepMs: number;
  runsSeen: number;
  errors: number;
  requests: CostSummary;
}

async function fill(inst: Install, target: number, have: number): Promise<void> {
  let next = have;
  const worker = async () => {
    while (next < target) {
      next++;
      const r = await inst.send(runRequest('janitor'));
      if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
}

/** Sweeps at each size in turn, adding runs between sweeps. `inst` runs a scenario whose pods never start. */
export async function janitorSweeps(cp: ControlPlane, inst: Install, sizes: readonly number[]): Promise<JanitorSweep[]> {
  const parsed = parseConfig({ ...inst.env, LOG_LEVEL: 'silent' });
  if (!parsed.ok) throw new Error(parsed.reason);
  const deps = {
    config: parsed.value, store: connectStore(inst.ns, DEFAULT_RETRY, inst.janitorKubeconfig), log: pino({ level: 'silent' }),
    now: () => new Date(), notify: async () => false,
  };
  const out: JanitorSweep[] = [];
  let have = 0;
  for (const size of sizes) {
    await fill(inst, size, have);
    have = size;
    await new Promise((r) => setTimeout(r, 1000));
    const before = await cp.requests();
    const t0 = performance.now();
    const s = await sweep(deps, new Date());
    const sweepMs = performance.now() - t0;
    const after = await cp.requests();
    out.push({ liveRuns: size, sweepMs, runsSeen: s.runsSeen, errors: s.errors, requests: summarizeCost(requestCounts(diffSamples(before, after))) });
  }
  return out;
}
