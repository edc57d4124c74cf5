// Cold start of the function as faas-js-runtime serves it: from the spawn of
// the process to the first answered /ready, and (in another fresh process) to
// the first answered run request and the first Job it created. The function
// is BENCH_ENTRY's (bench/entry.ts).
import { spawn } from 'node:child_process';
import { freePort, stopProcess } from '../local/function-process.ts';
import { benchFunction } from './entry.ts';
import { postJson, runRequest, scenario, type Install } from './install.ts';
import { rssMiB } from './procfs.ts';
import { spread } from './stats.ts';

export interface ColdStart {
  /** spawn → first 200 from /healthz (liveness: the runtime is listening). */
  toLiveMs: number;
  /** spawn → first 200 from /ready. */
  toReadyMs: number;
  /** spawn → first run request answered 200. */
  toRunAnsweredMs: number;
  /** spawn → the first Job of that run seen in the API server. */
  toFirstJobMs: number;
  /** RSS right after the first answer. */
  rssAfterStartMiB: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function spawnFunction(env: Record<string, string>) {
  const port = await freePort();
  const command = benchFunction();
  const t0 = performance.now();
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd, env: { ...(command.baseEnv ?? process.env), CASCADE_METRICS_PORT: '0', ...env, FUNC_PORT: String(port) }, stdio: 'ignore',
  });
  const stop = () => stopProcess(child);
  return { t0, child, url: `http://127.0.0.1:${port}`, stop };
}

/** Polls every 2 ms until `attempt` resolves to a value; connection refused and the like count as not yet. */
export async function until<T>(attempt: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const v = await attempt();
      if (v !== undefined) return v;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  throw new Error('the function did not answer in time');
}

async function once(inst: Install): Promise<ColdStart> {
  const a = await spawnFunction(inst.env);
  const live = await until(async () => ((await fetch(`${a.url}/healthz`)).ok ? performance.now() : undefined));
  const ready = await until(async () => ((await fetch(`${a.url}/ready`)).ok ? performance.now() : undefined));
  await a.stop();
  const b = await spawnFunction(inst.env);
  const req = runRequest('cold');
  const answered = await until(async () => {
    const r = await postJson(b.url, req);
    return r.status === 200 ? { at: performance.now(), run: String(r.body.run) } : undefined;
  });
  const rss = rssMiB(b.child.pid!) ?? 0;
  const job = await inst.recorder.waitJob(answered.run, 0);
  await b.stop();
  return { toLiveMs: live - a.t0, toReadyMs: ready - a.t0, toRunAnsweredMs: answered.at - b.t0, toFirstJobMs: job.added - b.t0, rssAfterStartMiB: rss };
}

export async function coldStart(inst: Install, tries: number): Promise<ColdStart> {
  await inst.setScenario(scenario(1, 600_000));
  const all: ColdStart[] = [];
  for (let i = 0; i < tries; i++) all.push(await once(inst));
  const med = (f: (c: ColdStart) => number) => spread(all.map(f))!.median;
  return {
    toLiveMs: med((c) => c.toLiveMs), toReadyMs: med((c) => c.toReadyMs), toRunAnsweredMs: med((c) => c.toRunAnsweredMs),
    toFirstJobMs: med((c) => c.toFirstJobMs), rssAfterStartMiB: med((c) => c.rssAfterStartMiB),
  };
}
