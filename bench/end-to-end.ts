// End to end: the run request until the CascadeRun's Succeeded condition, one
// run at a time, split into the pods' own time, Kubernetes' part (Job created
// → Job complete: Job controller, scheduler, kwok) and Cascade's part (request
// → first Job, each Job complete → next Job, last Job complete → Succeeded).
import { runRequest, scenario, type Install } from './install.ts';
import { spread } from './stats.ts';

export interface EndToEnd {
  modules: number;
  runs: number;
  e2eMs: number;
  /** e2e − the pods' own run time (modules × BENCH_POD_DELAY_MS). */
  overheadMs: number;
  kubernetesMs: number;
  cascadeMs: number;
  /** The function's reply to the run request, as the Broker saw it (the first Job is created before it). */
  replyMs: number;
}

export async function endToEnd(
  inst: Install,
  modules: number,
  runs: number,
  delayMs: number,
): Promise<{ figures: EndToEnd; runNames: string[] }> {
  await inst.setScenario(scenario(modules, delayMs));
  const rows: EndToEnd[] = [];
  const names: string[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await inst.send(runRequest(`e2e${modules}`));
    const replyMs = r.replyMs;
    if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
    const run = r.run;
    names.push(run);
    const ended = await inst.recorder.waitEnded(run);
    if (ended.phase !== 'Succeeded') throw new Error(`run ${run} ended ${ended.phase}`);
    const jobs = inst.recorder.jobsOf(run);
    const e2e = ended.ended! - t0;
    const kube = jobs.reduce((s, j) => s + ((j.completed ?? j.added) - j.added), 0);
    rows.push({
      modules,
      runs: 1,
      e2eMs: e2e,
      overheadMs: e2e - modules * delayMs,
      kubernetesMs: kube - modules * delayMs,
      cascadeMs: e2e - kube,
      replyMs,
    });
  }
  const med = (f: (r: EndToEnd) => number) => spread(rows.map(f))!.median;
  return {
    figures: {
      modules,
      runs,
      e2eMs: med((r) => r.e2eMs),
      overheadMs: med((r) => r.overheadMs),
      kubernetesMs: med((r) => r.kubernetesMs),
      cascadeMs: med((r) => r.cascadeMs),
      replyMs: med((r) => r.replyMs),
    },
    runNames: names,
  };
}
