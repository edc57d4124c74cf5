// `npm run bench`: Cascade's figures on this machine, against a local control
// plane (its own, or $CASCADE_KUBECONFIG's), with the function as a real
// process behind the Knative Broker stand-in, every event delivered through
// it as on a cluster. Prints a table and
// writes bench/results/<timestamp>.json. See bench/README.md.
//   BENCH_POD_DELAY_MS  pod run time under kwok (default 0)
//   BENCH_REPEAT        repeats; figures become median and spread (default 1)
//   BENCH_QUICK=1       a fast subset (up to 100 runs in flight)
//   BENCH_BROKER        sync (default: Knative's default Broker) or async (the async-handler annotation)
//   BENCH_ONLY          comma list of phases (cold,imports,e2e,cost,janitor,sink,throughput,ceiling,events,exact,
//                       sustained,replicas,ui,cli); sustained and replicas run only when named here
//   BENCH_SUSTAINED_RATES    run requests a second of the sustained phase's levels (default 5,10,20)
//   BENCH_SUSTAINED_SECONDS  how long each rate lasts (default 60, quick 20)
//   BENCH_SUSTAINED_BURSTS   then N run requests at once, each level to its end (default 50,200)
//   BENCH_REPLICAS      function processes of the replicas phase's levels, in turn (default 1,3)
//   BENCH_REPLICA_RUNS  run requests at once of each replicas level (default 200)
//   BENCH_CLI_TRIES     runs of each command in the cli phase (default 15, quick 7)
//   BENCH_EXACT_RUNS    runs in flight of the exact phase (default 10000, quick 500)
//   BENCH_UI_RUNS       runs of the ui phase (default 10000, quick 2000)
//   BENCH_UI_BURST      run changes of the ui phase's burst (default 1000, quick 500)
//   BENCH_COLD_TRIES    cold starts of each kind the cold phase takes the median of (default 3, quick 2)
//   BENCH_COLD_VS       another server entry (another build's server.cjs): the cold phase also takes
//                       BENCH_COLD_TRIES cold starts of each in turn and compares them pair by pair
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { repoRoot } from '../local/cluster/paths.ts';
import { apiCost, marginalPerStep, type ApiCost } from './api-cost.ts';
import { coldFloor } from './cold-floor.ts';
import { coldPaired, coldStart } from './cold-start.ts';
import { deadSinkReplies } from './dead-sink.ts';
import { controlPlane, type ControlPlane } from './control-plane.ts';
import { endToEnd } from './end-to-end.ts';
import { importTimes } from './imports.ts';
import { brokerIsAsync, deleteBenchNamespaces, install, scenario, type Install } from './install.ts';
import { janitorSweeps } from './janitor.ts';
import { ceiling } from './ceiling.ts';
import { cliSpeed } from './cli-speed.ts';
import { eventMix, eventPath } from './event-path.ts';
import { floors } from './runtime-floor.ts';
import { exactCounters } from './exact.ts';
import { rssMiB } from './procfs.ts';
import { combineRepeats, distribution } from './stats.ts';
import { formatTable } from './table.ts';
import { resultPath, jobPathSamples } from './transitions.ts';
import { throughput } from './throughput.ts';
import { uiScale } from './ui-scale.ts';
import { sustained, sustainedSettings } from './sustained.ts';
import { replicaLevels } from './replicas.ts';
import { report } from './report.ts';

const env = process.env;
const quick = env.BENCH_QUICK === '1';
const delayMs = Number(env.BENCH_POD_DELAY_MS ?? 0);
const repeat = Math.max(1, Number(env.BENCH_REPEAT ?? 1));
const only = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : undefined;
const on = (phase: string) => !only || only.has(phase);
/** Phases that run only when BENCH_ONLY names them: they take minutes and measure the raised limits. */
const NAMED_ONLY = new Set(['sustained', 'replicas']);
const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

type Figures = Record<string, unknown>;

async function e2eAndTransitions(inst: Install, out: Figures): Promise<void> {
  const e2e = [];
  const runs: string[] = [];
  for (const [modules, n] of [
    [1, quick ? 3 : 5],
    [3, quick ? 3 : 5],
    [10, quick ? 2 : 3],
  ] as const) {
    const r = await endToEnd(inst, modules, n, delayMs);
    e2e.push(r.figures);
    runs.push(...r.runNames);
  }
  out.endToEnd = e2e;
  out.transitions = {
    jobCompleteToNextJobMs: distribution(jobPathSamples(inst.recorder, runs)),
    ...(await resultPath(inst, quick ? 5 : 15)),
  };
}

async function cost(cp: ControlPlane, inst: Install, out: Figures): Promise<void> {
  const costs: ApiCost[] = [];
  // 3 and 10 modules at 5 runs at once (the marginal step), and 3 modules at
  // the 10-50 runs at once, where counter writes batch.
  const shapes = [
    [3, 10, 5],
    [10, 10, 5],
    [3, 20, 10],
    [3, quick ? 50 : 100, 50],
  ] as const;
  for (const [modules, runs, concurrency] of shapes) costs.push(await apiCost(cp, inst, modules, runs, concurrency));
  out.apiCost = { runs: costs, marginalPerStep: marginalPerStep(costs[0]!, costs[1]!) };
}

async function janitor(cp: ControlPlane, kc: KubeConfig, out: Figures): Promise<void> {
  const j = await install(kc, scenario(1, 0, true), 'cascade-bench-janitor');
  // The runs are made straight through the API (bench/janitor.ts): no function, so that the requests counted are the janitor's.
  await j.stop();
  {
    out.janitor = await janitorSweeps(cp, kc, j, quick ? [10, 100] : [100, 1000, 10_000], log);
  }
}

/** One process's ceiling, driven by module results (bench/ceiling.ts). */
async function ceilingPhase(cp: ControlPlane, kc: KubeConfig, out: Figures): Promise<void> {
  const c = await install(kc, scenario(1, 0, true), 'cascade-bench-ceiling');
  try {
    out.ceiling = await ceiling(cp, c, quick ? [4, 16] : [4, 16, 64, 128], quick ? 20_000 : 40_000, log);
  } finally {
    await c.stop();
  }
}

/** The function's CPU per change event that moves nothing (bench/event-path.ts). */
async function eventsPhase(kc: KubeConfig, out: Figures): Promise<void> {
  const e = await install(kc, scenario(20, 0, true), 'cascade-bench-events');
  try {
    const windowMs = quick ? 10_000 : 30_000;
    const mix = await eventMix(kc, e);
    const r = await eventPath(e, mix, 4, windowMs);
    log(
      `events: ${r.events} in ${r.seconds.toFixed(1)} s (${(r.events / r.seconds).toFixed(0)}/s), refused ${r.refused}; function CPU ${r.cpuUsPerEvent.toFixed(0)} µs per event, its main thread ${r.mainThreadUsPerEvent.toFixed(0)} µs`,
    );
    // The same events to servers that do nothing with them: the floor under the function's figure.
    const floor = await floors(mix, 4, windowMs);
    for (const f of floor)
      log(
        `events floor: ${f.server}: ${f.cpuUsPerEvent.toFixed(0)} µs per request (main thread ${f.mainThreadUsPerEvent.toFixed(0)}), ${f.events} requests, refused ${f.refused}`,
      );
    out.eventPath = { ...r, floors: floor };
  } finally {
    await e.stop();
  }
}

/**
 * Runs in flight through the function as deployed: behind Knative's
 * queue-proxy, which holds requests beyond knative/service.yaml's
 * containerConcurrency (the runs in flight are not requests in flight).
 */
async function throughputs(cp: ControlPlane, kc: KubeConfig, out: Figures, round: number): Promise<void> {
  const inst = await install(kc, scenario(3, delayMs), 'cascade-bench-throughput', {}, { queueProxy: true });
  try {
    const tp = [];
    for (const k of quick ? [1, 10, 100] : [1, 10, 100, 1000]) {
      log(`[${round}] throughput, ${k} in flight`);
      tp.push(await throughput(cp, inst, k, 3, delayMs, k >= 1000 || quick ? 60_000 : 150_000));
    }
    out.throughput = tp;
    const last = tp[tp.length - 1]!;
    out.memory = {
      ...(out.memory as object),
      atMaxInFlightRssMiB: last.usage.function?.maxRssMiB,
      maxInFlight: last.inFlight,
    };
  } finally {
    await inst.stop();
  }
}

/** One measurement; its failure is recorded in the figures and the others go on. */
async function phase(name: string, round: number, work: () => Promise<void>, out: Figures): Promise<void> {
  if (!on(name) || (NAMED_ONLY.has(name) && !only)) return;
  log(`[${round}] ${name}`);
  try {
    await work();
  } catch (error) {
    log(`[${round}] ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    out.failed = { ...(out.failed as object), [name]: error instanceof Error ? error.message : String(error) };
  }
}

async function once(cp: ControlPlane, kc: KubeConfig, round: number): Promise<Figures> {
  const out: Figures = {};
  const inst: Install = await install(kc, scenario(3, delayMs));
  try {
    await new Promise((r) => setTimeout(r, 1000));
    out.memory = { idleRssMiB: rssMiB(inst.fn.child.pid!) };
    await phase(
      'cold',
      round,
      async () => {
        const tries = Number(env.BENCH_COLD_TRIES ?? (quick ? 2 : 3));
        out.coldStart = await coldStart(inst, tries);
        out.coldFloor = await coldFloor(tries);
        if (env.BENCH_COLD_VS) out.coldPaired = await coldPaired(inst, env.BENCH_COLD_VS, tries);
      },
      out,
    );
    await phase(
      'imports',
      round,
      async () => {
        out.importMs = await importTimes(quick ? 1 : 3);
      },
      out,
    );
    await phase('e2e', round, () => e2eAndTransitions(inst, out), out);
    await phase('cost', round, () => cost(cp, inst, out), out);
    await phase('ceiling', round, () => ceilingPhase(cp, kc, out), out);
    await phase('events', round, () => eventsPhase(kc, out), out);
    await phase(
      'exact',
      round,
      async () => {
        out.exact = await exactCounters(kc, Number(env.BENCH_EXACT_RUNS ?? (quick ? 500 : 10_000)), 1, log);
      },
      out,
    );
    await phase('janitor', round, () => janitor(cp, kc, out), out);
    await phase(
      'sink',
      round,
      async () => {
        out.deadSink = await deadSinkReplies(kc, quick ? 5 : 15);
      },
      out,
    );
    await phase('throughput', round, () => throughputs(cp, kc, out, round), out);
    await phase(
      'sustained',
      round,
      async () => {
        out.sustained = await sustained(cp, kc, { ...sustainedSettings(env, quick), delayMs }, log);
      },
      out,
    );
    await phase(
      'replicas',
      round,
      async () => {
        const opts = {
          runs: Number(env.BENCH_REPLICA_RUNS ?? 200),
          replicas: (env.BENCH_REPLICAS ?? '1,3').split(',').map(Number),
          delayMs,
        };
        out.replicas = await replicaLevels(cp, kc, opts, log);
      },
      out,
    );
    await phase(
      'ui',
      round,
      async () => {
        const runs = Number(env.BENCH_UI_RUNS ?? (quick ? 2000 : 10_000));
        const burst = Number(env.BENCH_UI_BURST ?? (quick ? 500 : 1000));
        out.ui = await uiScale(cp.kubeconfig, { runs, burst }, log);
      },
      out,
    );
    await phase(
      'cli',
      round,
      async () => {
        out.cli = await cliSpeed(kc, cp.kubeconfig, Number(env.BENCH_CLI_TRIES ?? (quick ? 7 : 15)));
      },
      out,
    );
  } finally {
    await inst.stop();
  }
  return out;
}

async function main(): Promise<void> {
  const started = new Date();
  const cp = await controlPlane(log);
  process.env.KUBECONFIG = cp.kubeconfig;
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  const rounds: Record<string, unknown>[] = [];
  try {
    for (let i = 1; i <= repeat; i++) rounds.push(await once(cp, kc, i));
  } finally {
    await deleteBenchNamespaces(kc).catch(() => {});
    await cp.stop();
  }
  const figures = repeat === 1 ? rounds[0]! : (combineRepeats(rounds) as Record<string, unknown>);
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    kubernetes: cp.kubernetesVersion,
    loadAverageAtStart: loadAvgAtStart,
    loadAverageAtEnd: loadavg(),
  };
  const settings = {
    quick,
    podDelayMs: delayMs,
    repeat,
    only: only ? [...only] : 'all',
    broker: brokerIsAsync() ? 'async' : 'sync',
    apiLimits: cp.limits,
  };
  const result = {
    startedAt: started.toISOString(),
    durationSeconds: (Date.now() - started.getTime()) / 1000,
    machine,
    settings,
    figures,
    rounds: repeat > 1 ? rounds : undefined,
  };
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${formatTable(report(figures, machine, settings))}\n\nwritten to ${file}\n`);
}

const loadAvgAtStart = loadavg();
await main().catch((error: unknown) => {
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
process.exit();
