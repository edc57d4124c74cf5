// Throughput: K runs kept in flight against one function process (a closed
// loop: each run that ends is replaced until the batch is done), runs and
// steps per second, and what was busy meanwhile: CPU of the function and of
// the control plane's processes, the function's event-loop delay (from
// faas-js-runtime's default Node metrics) and its RSS.
import type { ControlPlane } from './control-plane.ts';
import { runRequest, scenario, type Install } from './install.ts';
import { sampleProcesses, type ProcessUsage } from './procfs.ts';
import { parseMetrics } from './prom.ts';
import { distribution, type Distribution } from './stats.ts';
import { jobPathSamples } from './transitions.ts';

export interface Throughput {
  inFlight: number;
  runs: number;
  seconds: number;
  runsPerSecond: number;
  /** Steps (Jobs) started per second. */
  stepsPerSecond: number;
  runMs: Distribution;
  /** Runs still in flight when the window closed (left running). */
  unfinished: number;
  kubernetesStepMs: Distribution;
  cascadeStepMs: Distribution;
  /** Run requests answered 429/503, or not answered (connection failed), and sent again. */
  retried: number;
  /** CPU (cores) and max RSS by process: function, kube-apiserver, etcd, ... */
  usage: Record<string, ProcessUsage>;
  eventLoopDelayP99Ms?: number | undefined;
  eventLoopDelayMaxMs?: number | undefined;
}

async function eventLoop(url: string): Promise<{ p99?: number; max?: number }> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const s = parseMetrics(text, 'nodejs_eventloop_lag');
    const v = (name: string) => s.find((x) => x.name === name)?.value;
    const ms = (x: number | undefined) => (x === undefined ? undefined : x * 1000);
    return { p99: ms(v('nodejs_eventloop_lag_p99_seconds')), max: ms(v('nodejs_eventloop_lag_max_seconds')) };
  } catch {
    return {};
  }
}

export function batchSize(inFlight: number): number {
  return inFlight === 1 ? 10 : inFlight <= 10 ? 3 * inFlight : inFlight;
}

/** Per step under load: Job added → complete (Kubernetes), Job complete → next Job (Cascade). */
function stepSplit(
  inst: Install,
  runs: readonly string[],
): { kubernetesStepMs: Distribution; cascadeStepMs: Distribution } {
  const kube: number[] = [];
  for (const run of runs)
    for (const j of inst.recorder.jobsOf(run)) if (j.completed !== undefined) kube.push(j.completed - j.added);
  return { kubernetesStepMs: distribution(kube), cascadeStepMs: distribution(jobPathSamples(inst.recorder, runs)) };
}

/**
 * Keeps `inFlight` runs going until `batchSize(inFlight)` have ended or
 * `windowMs` passed; runs still going then are counted and left running.
 */
export async function throughput(
  cp: ControlPlane,
  inst: Install,
  inFlight: number,
  modules: number,
  delayMs: number,
  windowMs: number,
): Promise<Throughput> {
  await inst.setScenario(scenario(modules, delayMs));
  const total = batchSize(inFlight);
  await eventLoop(inst.fn.url); // resets the runtime's event-loop histogram
  const sampler = sampleProcesses({ function: inst.fn.child.pid!, ...cp.pids });
  const durations: number[] = [];
  const names: string[] = [];
  let retried = 0;
  let next = 0;
  const started = performance.now();
  const closes = started + windowMs;
  const one = async () => {
    const t0 = performance.now();
    // The Broker retries a 429 or 503 (Knative's backoff); each retry is counted.
    const r = await inst.send(runRequest(`tp${inFlight}`));
    retried += r.attempts - 1;
    if (r.status !== 200) throw new Error(`run request answered ${r.status} after ${r.attempts} attempt(s)`);
    names.push(r.run);
    await inst.recorder.waitEnded(r.run, 3_600_000);
    durations.push(performance.now() - t0);
  };
  const worker = async () => {
    while (next < total && performance.now() < closes) {
      next++;
      await one();
    }
  };
  const all = Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  all.catch(() => {});
  await Promise.race([all, new Promise((r) => setTimeout(r, windowMs))]);
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  const usage = sampler.stop();
  const loop = await eventLoop(inst.fn.url);
  const steps = names.flatMap((n) => inst.recorder.jobsOf(n)).filter((j) => j.added <= ended).length;
  return {
    inFlight,
    runs: durations.length,
    seconds,
    runsPerSecond: durations.length / seconds,
    stepsPerSecond: steps / seconds,
    runMs: distribution(durations),
    unfinished: next - durations.length,
    ...stepSplit(inst, names),
    retried,
    usage,
    eventLoopDelayP99Ms: loop.p99,
    eventLoopDelayMaxMs: loop.max,
  };
}
