// The ceiling of one function process: module results drive the step
// transitions, as fast as the function takes them, so that no Job has to run.
// Pods are never scheduled. The Job controller, the scheduler and kwok are off
// the critical path, though they still create and delete a pod per step.
// Each sender owns one run of M modules at a time. It posts the result
// `success` for the run's current module, then for the next, and starts a new
// run when one ends. For each result the function creates the next Job, writes
// the status and deletes the Job before. The ApiServerSource's Job events reach
// the function meanwhile, as on a cluster. Results are posted straight to the
// function, to measure its own ceiling, not the Broker's. Senders rise level by
// level; each level reports step transitions/s, CPU of every process and of the
// machine, the function's event-loop delay and the API server's 429s;
// verdict() says where it saturates.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { ControlPlane } from './control-plane.ts';
import { verdict, type LevelFigures, type Verdict } from './ceiling-verdict.ts';
import { auditLinesSince, auditMark, countByClient } from '../test/support/audit-log.ts';
import { apiCallFloor, type ApiCallFloor } from './api-call-floor.ts';
import { postJson, runRequest, scenario, type Install } from './install.ts';
import { sampleProcesses } from './procfs.ts';
import { diffSamples, parseMetrics } from './prom.ts';
import { distribution, type Distribution } from './stats.ts';

export const CEILING_TARGET_PER_SECOND = 300;

export interface CeilingLevel extends LevelFigures {
  seconds: number;
  /** Module results that moved a step (answered 200). */
  transitions: number;
  /** Runs that started and ended within the level. */
  runsEnded: number;
  /** Replies other than 200 (each counted; the sender moves on to a new run). */
  refused: number;
  replyMs: Distribution;
  eventLoopDelayP99Ms?: number | undefined;
  apiserverRequestsPerSecond: number;
  functionRssMiB: number;
  /** Requests the function's runtime invoked it for (faas_invocations: run requests, module results, change events) per transition. */
  functionRequestsPerTransition?: number | undefined;
  /** The function's own API requests (reads, writes, Kubernetes Events; the audit log's) per transition. */
  functionApiCallsPerTransition: number;
}

export interface Ceiling {
  modulesPerRun: number;
  levels: CeilingLevel[];
  verdict?: Verdict | undefined;
  /** What one API call costs a bare Node.js process here (bench/api-call-floor.ts). */
  apiCallFloor?: ApiCallFloor | undefined;
}

/** Busy jiffies and all jiffies of the machine (/proc/stat). */
export function machineTicks(): { busy: number; all: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const all = cpu.reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: all - idle, all };
}

async function functionMetric(url: string, name: string): Promise<number | undefined> {
  try {
    const samples = parseMetrics(await (await fetch(url)).text(), name);
    return samples.find((s) => s.name === name)?.value;
  } catch {
    return undefined;
  }
}

interface Tally {
  transitions: number;
  runsEnded: number;
  refused: number;
  replies: number[];
  lastRun?: string;
}

/** One sender until `until`: a run at a time, its module results one after the other. */
async function sender(inst: Install, modules: number, until: number, t: Tally): Promise<void> {
  while (performance.now() < until) {
    const started = await postJson(inst.fn.url, runRequest('ceiling'));
    if (started.status !== 200) {
      t.refused++;
      continue;
    }
    const run = started.body.run as string;
    t.lastRun = run;
    for (let k = 0; k < modules && performance.now() < until; k++) {
      const t0 = performance.now();
      const r = await postJson(inst.fn.url, { runname: run, modulename: `m${k}`, moduleresult: 'success' });
      t.replies.push(performance.now() - t0);
      if (r.status !== 200) {
        t.refused++;
        break;
      }
      t.transitions++;
      if (k === modules - 1) t.runsEnded++;
    }
  }
}

async function level(
  cp: ControlPlane,
  inst: Install,
  senders: number,
  modules: number,
  windowMs: number,
): Promise<CeilingLevel & { lastRun?: string | undefined }> {
  await functionMetric(`${inst.fn.url}/metrics`, 'nodejs_eventloop_lag_p99_seconds'); // resets the runtime's histogram
  const invoked0 = await functionMetric(`${inst.fn.url}/metrics`, 'faas_invocations');
  const before = await cp.requests();
  const mark = auditMark(cp.auditLog);
  const ticks0 = machineTicks();
  const sampler = sampleProcesses({ function: inst.fn.child.pid!, ...cp.pids });
  const t: Tally = { transitions: 0, runsEnded: 0, refused: 0, replies: [] };
  const start = performance.now();
  await Promise.all(Array.from({ length: senders }, () => sender(inst, modules, start + windowMs, t)));
  const seconds = (performance.now() - start) / 1000;
  const usage = sampler.stop();
  const ticks1 = machineTicks();
  const requests = diffSamples(before, await cp.requests());
  const lag = await functionMetric(`${inst.fn.url}/metrics`, 'nodejs_eventloop_lag_p99_seconds');
  const invoked1 = await functionMetric(`${inst.fn.url}/metrics`, 'faas_invocations');
  const invoked = invoked0 === undefined || invoked1 === undefined ? undefined : invoked1 - invoked0;
  // Calls made after the window (replies still coming) are few beside a level's thousands; the audit log is written asynchronously.
  await new Promise((r) => setTimeout(r, 2000));
  const calls = countByClient(auditLinesSince(cp.auditLog, mark), { function: inst.identities.function! }).function!;
  const machineCores = cpus().length;
  return {
    senders,
    seconds,
    transitions: t.transitions,
    transitionsPerSecond: t.transitions / seconds,
    runsEnded: t.runsEnded,
    refused: t.refused,
    replyMs: distribution(t.replies),
    cores: Object.fromEntries(Object.entries(usage).map(([name, u]) => [name, u.cores])),
    machineBusyCores: ((ticks1.busy - ticks0.busy) / Math.max(1, ticks1.all - ticks0.all)) * machineCores,
    machineCores,
    apiserver429: requests.filter((s) => s.labels.code === '429').reduce((a, s) => a + s.value, 0),
    apiserverRequestsPerSecond: requests.reduce((a, s) => a + s.value, 0) / seconds,
    eventLoopDelayP99Ms: lag === undefined ? undefined : lag * 1000,
    functionRssMiB: usage.function?.maxRssMiB ?? 0,
    functionRequestsPerTransition: invoked === undefined || t.transitions === 0 ? undefined : invoked / t.transitions,
    functionApiCallsPerTransition: (calls.reads + calls.writes + calls.events) / Math.max(1, t.transitions),
    lastRun: t.lastRun,
  };
}

/** Levels of `senders` in turn, `windowMs` each, on runs of `modules` modules whose pods never start. */
export async function ceiling(
  cp: ControlPlane,
  inst: Install,
  sendersByLevel: readonly number[],
  windowMs: number,
  log: (m: string) => void,
): Promise<Ceiling> {
  const modules = 20;
  await inst.setScenario(scenario(modules, 0, true));
  const levels: CeilingLevel[] = [];
  let lastRun: string | undefined;
  for (const senders of sendersByLevel) {
    const { lastRun: run, ...l } = await level(cp, inst, senders, modules, windowMs);
    lastRun = run ?? lastRun;
    levels.push(l);
    log(
      `ceiling: ${senders} senders: ${l.transitionsPerSecond.toFixed(1)} transitions/s (target ≥ ${CEILING_TARGET_PER_SECOND}); ` +
        `cores ${JSON.stringify(Object.fromEntries(Object.entries(l.cores).map(([k, v]) => [k, Number(v.toFixed(2))])))}, machine ${l.machineBusyCores.toFixed(2)}/${l.machineCores}, ` +
        `429s ${l.apiserver429}, requests to the function per transition ${l.functionRequestsPerTransition?.toFixed(1)}, its API calls ${l.functionApiCallsPerTransition.toFixed(1)}, reply p50/p99 ${l.replyMs.p50?.toFixed(0)}/${l.replyMs.p99?.toFixed(0)} ms, loop p99 ${l.eventLoopDelayP99Ms?.toFixed(0)} ms, refused ${l.refused}`,
    );
  }
  const v = verdict(levels);
  if (v)
    log(
      `ceiling: ${v.transitionsPerSecond.toFixed(1)} transitions/s at ${v.atSenders} senders; limit: ${v.limit}: ${v.evidence}`,
    );
  const floor = lastRun ? await apiCallFloor(inst, lastRun) : undefined;
  if (floor)
    log(
      `ceiling: one API call costs a bare Node.js process ${floor.cpuUsPerCall.toFixed(0)} µs of CPU (${floor.calls} GETs of a run, ${floor.wallMsPerCall.toFixed(1)} ms each)`,
    );
  return { modulesPerRun: modules, levels, verdict: v, apiCallFloor: floor };
}
