// Several replicas of the function behind the Broker stand-in, which delivers
// to them in turn, as a Knative Service's pods share its traffic. N run
// requests at once, to one replica, then to three (BENCH_REPLICAS). Every run's
// start and end writes the one CascadeAutoOperator status, so each level
// counts the replicas' status writes the API server refused with 409 (the
// audit log), and what they cost: the reads and writes beyond one replica's.
import type { KubeConfig } from '@kubernetes/client-node';
import { auditLinesSince, auditMark, countByClient } from '../test/support/audit-log.ts';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import type { ControlPlane } from './control-plane.ts';
import { benchFunction } from './entry.ts';
import { install, scenario, type Install } from './install.ts';
import { distribution, type Distribution } from './stats.ts';
import { DEFAULT_BUCKET, ended, kubernetesSteps, sendAll } from './sustained.ts';
import {
  conflictsByVerb,
  operatorRequests,
  repliesByKind,
  type OperatorRequests,
  type RepliesByKind,
} from './sustained-figures.ts';
import { jobPathSamples } from './transitions.ts';
import { jobPathStages, type JobPathStages } from './job-path-stages.ts';

export interface ReplicaLevel {
  replicas: number;
  runs: number;
  refused: number;
  unfinished: number;
  /** First run request → last run ended. */
  seconds: number;
  stepMs: Distribution;
  /** Job added → complete: the Job controller, the scheduler and kwok. */
  kubernetesStepMs: Distribution;
  replyMs: Distribution;
  /** The replicas' requests by "resource verb" (test/support/audit-log.ts). */
  byVerb: Record<string, number>;
  /** Of those, the ones answered 409. */
  conflictsByVerb: Record<string, number>;
  replies: RepliesByKind;
  /** Where each Job's time went, component by component, and the operator's status write time (audit log). */
  jobPath: JobPathStages;
  /** The replicas' requests, all together (they share one ServiceAccount). */
  operator: OperatorRequests;
  perRun: OperatorRequests;
  /** Per run: the replicas' requests on the counters' Lease, and their writes of any kind refused 409. */
  leasePerRun: number;
  conflictsPerRun: number;
}

/** Requests of `byVerb` on the counters' Lease. */
function leaseRequests(byVerb: Record<string, number>): number {
  return Object.entries(byVerb)
    .filter(([verb]) => verb.startsWith('leases '))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** N run requests at once to the replicas the Broker has now. */
async function level(
  cp: ControlPlane,
  inst: Install,
  fns: readonly FunctionProcess[],
  runs: number,
): Promise<ReplicaLevel> {
  const replicas = fns.length;
  const mark = auditMark(cp.auditLog);
  const a0 = inst.broker.attempts.length;
  const start = performance.now();
  const sent = await sendAll(
    inst,
    Array.from({ length: runs }, () => 0),
    start,
    `r${replicas}`,
  );
  const times = await ended(inst, sent.names);
  const last = Math.max(start, ...times.map((t) => t?.ended ?? start));
  await inst.broker.settled();
  // The audit log is written in batches: wait for the level's last lines.
  await new Promise((r) => setTimeout(r, 3000));
  const lines = auditLinesSince(cp.auditLog, mark);
  const operator = operatorRequests(lines, inst.identities.function!);
  const byVerb = countByClient(lines, { function: inst.identities.function! }).function!.byVerb;
  const per = (v: number) => v / Math.max(1, sent.names.length);
  const conflicts = conflictsByVerb(lines, inst.identities.function!);
  return {
    replicas,
    runs,
    refused: sent.refused,
    unfinished: times.filter((t) => t?.ended === undefined).length,
    seconds: (last - start) / 1000,
    stepMs: distribution(jobPathSamples(inst.recorder, sent.names)),
    kubernetesStepMs: distribution(kubernetesSteps(inst, sent.names)),
    replyMs: distribution(sent.replies),
    byVerb,
    conflictsByVerb: conflicts,
    replies: repliesByKind(inst.broker.attempts.slice(a0)),
    jobPath: jobPathStages(lines, inst.ns),
    operator,
    perRun: {
      requests: per(operator.requests),
      statusWrites: per(operator.statusWrites),
      conflicts: per(operator.conflicts),
      reads: per(operator.reads),
    },
    leasePerRun: per(leaseRequests(byVerb)),
    conflictsPerRun: per(Object.values(conflicts).reduce((sum, c) => sum + c, 0)),
  };
}

/** One installation; `runs` at once on each count of replicas in turn (BENCH_REPLICAS: 1,3). */
export async function replicaLevels(
  cp: ControlPlane,
  kc: KubeConfig,
  opts: { runs: number; replicas: number[]; delayMs: number },
  log: (m: string) => void,
): Promise<ReplicaLevel[]> {
  const inst = await install(kc, scenario(3, opts.delayMs), 'cascade-bench-replicas', DEFAULT_BUCKET);
  const more: FunctionProcess[] = [];
  const out: ReplicaLevel[] = [];
  try {
    for (const n of opts.replicas) {
      while (more.length + 1 < n) more.push(await startFunction(inst.env, benchFunction()));
      inst.broker.setAddresses('Service/cascade', [inst.fn.url, ...more.map((f) => f.url)]);
      const l = await level(cp, inst, [inst.fn, ...more], opts.runs);
      out.push(l);
      log(
        `replicas ${n}, ${l.runs} at once: ${l.seconds.toFixed(1)} s; operator status writes ${l.operator.statusWrites}, 409 ${l.operator.conflicts} (${l.perRun.conflicts.toFixed(2)} per run), reads ${l.operator.reads}; Lease requests per run ${l.leasePerRun.toFixed(2)}; all 409 per run ${l.conflictsPerRun.toFixed(2)}; ` +
          `function requests per run ${l.perRun.requests.toFixed(1)}; progress 429/5xx ${l.replies.progress.r429}/${l.replies.progress.r5xx}, run requests 429/5xx ${l.replies.runRequests.r429}/${l.replies.runRequests.r5xx}; step p99 ${l.stepMs.p99?.toFixed(0)} ms, Job added → complete p50/p99 ${l.kubernetesStepMs.p50?.toFixed(0)}/${l.kubernetesStepMs.p99?.toFixed(0)} ms, unfinished ${l.unfinished}; ${JSON.stringify(l.byVerb)}; 409 ${JSON.stringify(l.conflictsByVerb)}, reply p50/p99 ${l.replyMs.p50?.toFixed(0)}/${l.replyMs.p99?.toFixed(0)} ms`,
      );
    }
  } finally {
    await inst.stop();
    await Promise.all(more.map((f) => f.stop()));
  }
  return out;
}
