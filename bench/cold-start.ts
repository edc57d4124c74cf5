// Cold start of the function as faas-js-runtime serves it: from the spawn of
// the process to the first answered /ready, and (in another fresh process) to
// the first answered run request and the first Job it created. The function
// is BENCH_ENTRY's (bench/entry.ts). With BENCH_COLD_VS (another build's
// server.cjs, say), cold starts of both are taken in turn and compared pair
// by pair: single cold starts range over ±60 ms here, more than most changes.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, stopProcess } from '../local/stand-ins/function-process.ts';
import { benchFunction, ENTRY } from './entry.ts';
import { postJson, runRequest, scenario, type Install } from './install.ts';
import { mainThreadCpuMs, rssMiB } from './procfs.ts';
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

async function spawnFunction(env: Record<string, string>, entry?: string) {
  const port = await freePort();
  const command = benchFunction(entry);
  const t0 = performance.now();
  const child = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: { ...(command.baseEnv ?? process.env), CASCADE_METRICS_PORT: '0', ...env, FUNC_PORT: String(port) },
    stdio: 'ignore',
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

/** Polls a fresh process with a run request until it answers 200: when, and the run. */
function firstRunAnswered(url: string): Promise<{ at: number; run: string }> {
  const req = runRequest('cold');
  return until(async () => {
    const r = await postJson(url, req);
    return r.status === 200 ? { at: performance.now(), run: String(r.body.run) } : undefined;
  });
}

async function once(inst: Install): Promise<ColdStart> {
  const a = await spawnFunction(inst.env);
  const live = await until(async () => ((await fetch(`${a.url}/healthz`)).ok ? performance.now() : undefined));
  const ready = await until(async () => ((await fetch(`${a.url}/ready`)).ok ? performance.now() : undefined));
  await a.stop();
  const b = await spawnFunction(inst.env);
  const answered = await firstRunAnswered(b.url);
  const rss = rssMiB(b.child.pid!) ?? 0;
  const job = await inst.recorder.waitJob(answered.run, 0);
  await b.stop();
  return {
    toLiveMs: live - a.t0,
    toReadyMs: ready - a.t0,
    toRunAnsweredMs: answered.at - b.t0,
    toFirstJobMs: job.added - b.t0,
    rssAfterStartMiB: rss,
  };
}

export async function coldStart(inst: Install, tries: number): Promise<ColdStart> {
  await inst.setScenario(scenario(1, 600_000));
  const all: ColdStart[] = [];
  for (let i = 0; i < tries; i++) all.push(await once(inst));
  const med = (f: (c: ColdStart) => number) => spread(all.map(f))!.median;
  return {
    toLiveMs: med((c) => c.toLiveMs),
    toReadyMs: med((c) => c.toReadyMs),
    toRunAnsweredMs: med((c) => c.toRunAnsweredMs),
    toFirstJobMs: med((c) => c.toFirstJobMs),
    rssAfterStartMiB: med((c) => c.rssAfterStartMiB),
  };
}

export interface ColdPaired {
  /** The entry compared with BENCH_ENTRY (BENCH_COLD_VS). */
  vs: string;
  pairs: number;
  /** spawn → first run request answered, medians: BENCH_ENTRY's, vs's, and of each pair's difference (BENCH_ENTRY − vs). */
  entryMs: number;
  vsMs: number;
  deltaMs: number;
  /** The main thread's CPU time to that answer, the same three medians. */
  entryCpuMs: number;
  vsCpuMs: number;
  deltaCpuMs: number;
}

/** One cold start of `entry` to its first answered run request: the time, and its main thread's CPU time then. */
async function toRunAnswered(inst: Install, entry: string): Promise<{ ms: number; cpuMs: number }> {
  const f = await spawnFunction(inst.env, entry);
  try {
    const answered = await firstRunAnswered(f.url);
    return { ms: answered.at - f.t0, cpuMs: mainThreadCpuMs(f.child.pid!) ?? Number.NaN };
  } finally {
    await f.stop();
  }
}

/** `pairs` cold starts of each, in turn (A B, B A, ...), compared pair by pair, so that the comparison holds while the machine's speed drifts. */
export async function coldPaired(inst: Install, vs: string, pairs: number): Promise<ColdPaired> {
  if (!existsSync(benchFunction(vs).args.at(-1)!)) throw new Error(`BENCH_COLD_VS: no entry at ${vs}`);
  await inst.setScenario(scenario(1, 600_000));
  const a: { ms: number; cpuMs: number }[] = [];
  const b: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      a.push(await toRunAnswered(inst, ENTRY));
      b.push(await toRunAnswered(inst, vs));
    } else {
      b.push(await toRunAnswered(inst, vs));
      a.push(await toRunAnswered(inst, ENTRY));
    }
  }
  const med = (xs: number[]) => spread(xs)!.median;
  return {
    vs,
    pairs,
    entryMs: med(a.map((x) => x.ms)),
    vsMs: med(b.map((x) => x.ms)),
    deltaMs: med(a.map((x, i) => x.ms - b[i]!.ms)),
    entryCpuMs: med(a.map((x) => x.cpuMs)),
    vsCpuMs: med(b.map((x) => x.cpuMs)),
    deltaCpuMs: med(a.map((x, i) => x.cpuMs - b[i]!.cpuMs)),
  };
}
