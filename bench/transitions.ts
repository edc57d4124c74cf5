// Step transition latency: from a module's result, or its Job completing, to
// the next Job existing in the API server (as the recorder's watch saw them).
import { distribution, type Distribution } from './stats.ts';
import { runRequest, scenario, type Install } from './install.ts';
import type { Recorder } from './recorder.ts';

/** Job completion → next Job added, for every consecutive pair of steps of the given runs. */
export function jobPathSamples(recorder: Recorder, runs: readonly string[]): number[] {
  const out: number[] = [];
  for (const run of runs) {
    const jobs = recorder.jobsOf(run);
    for (let k = 0; k + 1 < jobs.length; k++) {
      const done = jobs[k]!.completed;
      if (done !== undefined && jobs[k + 1]!.step === jobs[k]!.step + 1) out.push(jobs[k + 1]!.added - done);
    }
  }
  return out;
}

export interface ResultPath {
  /** Module result sent to the Broker → next Job added (ms). */
  latencyMs: Distribution;
  /** The function's reply to the Broker's delivery of the module result (ms). */
  replyMs: Distribution;
}

/**
 * Runs whose pods never finish on their own (10 min under kwok). Module results
 * sent to the Broker move them, as the modules would, one run at a time. Each
 * result goes once its module's pod is ready, the earliest a module can send
 * one. Sent the moment the Job appeared, it would queue behind the decision
 * that created that Job, still writing its status, and time that instead.
 */
export async function resultPath(inst: Install, runs: number, modules = 3): Promise<ResultPath> {
  await inst.setScenario(scenario(modules, 600_000));
  const latency: number[] = [];
  const reply: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = await inst.send(runRequest('result'));
    if (started.status !== 200)
      throw new Error(`run request answered ${started.status} after ${started.attempts} attempt(s)`);
    const run = started.run;
    for (let k = 0; k < modules; k++) {
      await inst.recorder.waitReady(run, k);
      const t0 = performance.now();
      const r = await inst.send({ runname: run, modulename: `m${k}`, moduleresult: 'success' });
      reply.push(r.replyMs);
      if (r.status !== 200) throw new Error(`module result answered ${r.status} after ${r.attempts} attempt(s)`);
      if (k + 1 < modules) latency.push((await inst.recorder.waitJob(run, k + 1)).added - t0);
    }
    await inst.recorder.waitEnded(run);
  }
  return { latencyMs: distribution(latency), replyMs: distribution(reply) };
}
