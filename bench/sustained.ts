// Sustained rate: run requests arrive through the Broker stand-in at a steady
// rate, whatever happens to the runs before them (an open loop), for a fixed
// time per rate. Then bursts: N run requests at once. Each level reports
// runs and transitions per second, step and reply latency, the function's
// replies that held an event back, CPU of every process, and the busiest one.
// The function runs as deployed: behind queue-proxy, with its default token
// bucket, so a 429 or a 503 here is one a cluster would see.
import { cpus, loadavg } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.ts';
import { machineTicks } from './ceiling.ts';
import { install, runRequest, scenario, type Install } from './install.ts';
import { sampleProcesses } from './procfs.ts';
import { diffSamples } from './prom.ts';
import { distribution, type Distribution } from './stats.ts';
import { arrivals, busiest, cpuMsPer, perSecond, repliesByKind, type RepliesByKind } from './sustained-figures.ts';
import { jobPathSamples } from './transitions.ts';

export interface SustainedLevel {
  /** "10/s" or "50 at once". */
  level: string;
  requested: number;
  /** Run requests finally answered other than 200 (after the Broker's retries), or not delivered. */
  refused: number;
  /** The window the rates are taken over: the arrivals, or for a burst until its last run ended. */
  seconds: number;
  runsPerSecond: number;
  /** Jobs created and runs ended in the window, per second. */
  transitionsPerSecond: number;
  /** Runs admitted that had not ended when the window closed, and after the drain. */
  behindAtWindowEnd: number;
  unfinished: number;
  /** Job complete → next Job (bench/transitions.ts). */
  stepMs: Distribution;
  /** Job added → Job complete: the Job controller, the scheduler and kwok. */
  kubernetesStepMs: Distribution;
  /** The function's reply to each run request, as the Broker saw it. */
  replyMs: Distribution;
  replies: RepliesByKind;
  apiserver429: number;
  functionCpuMsPerTransition?: number | undefined;
  /** CPU by process over the window (cores). */
  cores: Record<string, number>;
  machineBusyCores: number;
  busiest?: { name: string; cores: number } | undefined;
  loadAverage: number[];
}

export interface SustainedSettings {
  rates: number[];
  seconds: number;
  bursts: number[];
}

const list = (s: string | undefined, fallback: number[]) =>
  s === undefined ? fallback : s.split(',').filter(Boolean).map(Number);

/** BENCH_SUSTAINED_RATES, BENCH_SUSTAINED_SECONDS, BENCH_SUSTAINED_BURSTS (bench/run.ts's header). */
export function sustainedSettings(env: Record<string, string | undefined>, quick: boolean): SustainedSettings {
  return {
    rates: list(env.BENCH_SUSTAINED_RATES, [5, 10, 20]),
    seconds: Number(env.BENCH_SUSTAINED_SECONDS ?? (quick ? 20 : 60)),
    bursts: list(env.BENCH_SUSTAINED_BURSTS, [50, 200]),
  };
}

/** The default token bucket (docs/contract.md): BENCH_FUNCTION_ENV opens it wide for the other phases. */
export const DEFAULT_BUCKET = { CASCADE_RATE_LIMIT: '100', CASCADE_RATE_BURST: '200' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const DRAIN_MS = 180_000;

interface Sent {
  names: string[];
  replies: number[];
  refused: number;
}

/** Sends the run requests at their offsets from `start`; resolves once each was answered. */
export async function sendAll(inst: Install, offsets: number[], start: number, tag: string): Promise<Sent> {
  const s: Sent = { names: [], replies: [], refused: 0 };
  const one = async () => {
    try {
      const r = await inst.send(runRequest(tag));
      s.replies.push(r.replyMs);
      if (r.status === 200) s.names.push(r.run);
      else s.refused++;
    } catch {
      s.refused++;
    }
  };
  const fired: Promise<void>[] = [];
  for (const at of offsets) {
    await sleep(start + at - performance.now());
    fired.push(one());
  }
  await Promise.all(fired);
  return s;
}

export const ended = (inst: Install, names: readonly string[]) =>
  Promise.all(names.map((n) => inst.recorder.waitEnded(n, DRAIN_MS).catch(() => undefined)));

/** Jobs created and runs ended by `names` at their recorded times. */
function transitionTimes(inst: Install, names: readonly string[]): { runs: number[]; all: number[] } {
  const runs = names.map((n) => inst.recorder.runs.get(n)?.ended).filter((t): t is number => t !== undefined);
  const jobs = names.flatMap((n) => inst.recorder.jobsOf(n).map((j) => j.added));
  return { runs, all: [...runs, ...jobs] };
}

/** Job added → complete of each Job of `names`. */
export function kubernetesSteps(inst: Install, names: readonly string[]): number[] {
  return names.flatMap((n) =>
    inst.recorder.jobsOf(n).flatMap((j) => (j.completed === undefined ? [] : [j.completed - j.added])),
  );
}

/** One level: a rate for `durationMs`, or a burst. */
export async function level(
  cp: ControlPlane,
  inst: Install,
  shape: { rate: number; durationMs: number } | { burst: number },
): Promise<SustainedLevel> {
  const name = 'burst' in shape ? `${shape.burst} at once` : `${shape.rate}/s`;
  const offsets = arrivals(shape);
  const a0 = inst.broker.attempts.length;
  const before = await cp.requests();
  const pids: Record<string, number> = { function: inst.fn.child.pid!, bench: process.pid, ...cp.pids };
  if (inst.queueProxyPid) pids['queue-proxy'] = inst.queueProxyPid;
  const sampler = sampleProcesses(pids);
  const ticks0 = machineTicks();
  const start = performance.now();
  const sending = sendAll(inst, offsets, start, `s${name.replace(/\D/g, '')}`);
  if ('rate' in shape) await sleep(start + shape.durationMs - performance.now());
  else await ended(inst, (await sending).names);
  const end = performance.now();
  const usage = sampler.stop();
  const ticks1 = machineTicks();
  const sent = await sending;
  const behind = sent.names.filter((n) => (inst.recorder.runs.get(n)?.ended ?? Infinity) > end).length;
  await ended(inst, sent.names);
  await inst.broker.settled();
  const seconds = (end - start) / 1000;
  const times = transitionTimes(inst, sent.names);
  const transitions = times.all.filter((t) => t >= start && t <= end).length;
  const cores = Object.fromEntries(Object.entries(usage).map(([n, u]) => [n, u.cores]));
  const requests = diffSamples(before, await cp.requests());
  return {
    level: name,
    requested: offsets.length,
    refused: sent.refused,
    seconds,
    runsPerSecond: perSecond(times.runs, start, end),
    transitionsPerSecond: transitions / seconds,
    behindAtWindowEnd: behind,
    unfinished: sent.names.filter((n) => inst.recorder.runs.get(n)?.ended === undefined).length,
    stepMs: distribution(jobPathSamples(inst.recorder, sent.names)),
    kubernetesStepMs: distribution(kubernetesSteps(inst, sent.names)),
    replyMs: distribution(sent.replies),
    replies: repliesByKind(inst.broker.attempts.slice(a0)),
    apiserver429: requests.filter((s) => s.labels.code === '429').reduce((a, s) => a + s.value, 0),
    functionCpuMsPerTransition: cpuMsPer(cores.function ?? 0, seconds, transitions),
    cores,
    machineBusyCores: ((ticks1.busy - ticks0.busy) / Math.max(1, ticks1.all - ticks0.all)) * cpus().length,
    busiest: busiest(cores),
    loadAverage: loadavg(),
  };
}

/** The phase: one installation behind queue-proxy, the rates in turn, then the bursts. */
export async function sustained(
  cp: ControlPlane,
  kc: KubeConfig,
  settings: SustainedSettings & { delayMs: number },
  log: (m: string) => void,
): Promise<SustainedLevel[]> {
  const inst = await install(kc, scenario(3, settings.delayMs), 'cascade-bench-sustained', DEFAULT_BUCKET, {
    queueProxy: true,
  });
  const out: SustainedLevel[] = [];
  try {
    const shapes = [
      ...settings.rates.map((rate) => ({ rate, durationMs: settings.seconds * 1000 })),
      ...settings.bursts.map((burst) => ({ burst })),
    ];
    for (const shape of shapes) {
      const l = await level(cp, inst, shape);
      out.push(l);
      log(
        `sustained ${l.level}: ${l.runsPerSecond.toFixed(1)} runs/s, ${l.transitionsPerSecond.toFixed(1)} transitions/s, step p50/p99 ${l.stepMs.p50?.toFixed(0)}/${l.stepMs.p99?.toFixed(0)} ms, reply p50/p99 ${l.replyMs.p50?.toFixed(0)}/${l.replyMs.p99?.toFixed(0)} ms, ` +
          `progress 429/5xx ${l.replies.progress.r429}/${l.replies.progress.r5xx}, run requests 429/5xx ${l.replies.runRequests.r429}/${l.replies.runRequests.r5xx}, Job added → complete p50/p99 ${l.kubernetesStepMs.p50?.toFixed(0)}/${l.kubernetesStepMs.p99?.toFixed(0)} ms, behind ${l.behindAtWindowEnd}, unfinished ${l.unfinished}, cores ${JSON.stringify(l.cores)}, machine ${l.machineBusyCores.toFixed(2)}`,
      );
    }
  } finally {
    await inst.stop();
  }
  return out;
}
