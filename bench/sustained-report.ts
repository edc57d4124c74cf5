// The terminal table's sections of the sustained and replicas phases. Pure.
import { formatNumber, type Cell, type Section } from './table.ts';

type Tree = Record<string, unknown>;

const list = (v: unknown): Tree[] => (Array.isArray(v) ? (v as Tree[]) : []);
const n = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const at = (t: unknown, ...path: string[]): unknown => path.reduce<unknown>((o, k) => (o as Tree | undefined)?.[k], t);
/** "a / b" of two figures. */
const pair = (a: unknown, b: unknown): Cell =>
  n(a) === undefined && n(b) === undefined ? undefined : `${fmt(a)} / ${fmt(b)}`;
const fmt = (v: unknown): string => (n(v) === undefined ? '–' : formatNumber(n(v)!));
/** The cores of every process sampled: the bench's share of the machine. */
const sum = (cores: unknown): number =>
  Object.values((cores ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
const refusals = (r: unknown): Cell => pair(at(r, 'r429'), at(r, 'r5xx'));

export function sustainedSection(f: Tree): Section | undefined {
  if (!f.sustained) return undefined;
  return {
    title:
      'Sustained rate on raised limits, 3-module runs behind queue-proxy, default token bucket: runs arrive at a steady rate (or N at once), whatever the runs before them do',
    head: [
      'level',
      'sent',
      'refused',
      'runs/s',
      'transitions/s',
      'step p50 / p99 ms',
      'Job added → complete p50 / p99 ms',
      'reply p50 / p99 ms',
      'progress 429 / 5xx',
      'run request 429 / 5xx',
      'fn CPU ms per transition',
      'busiest process (cores)',
      'cores: ours / machine',
      'behind at end / never ended',
    ],
    rows: list(f.sustained).map((l) => [
      String(l.level),
      n(l.requested),
      n(l.refused),
      n(l.runsPerSecond),
      n(l.transitionsPerSecond),
      pair(at(l, 'stepMs', 'p50'), at(l, 'stepMs', 'p99')),
      pair(at(l, 'kubernetesStepMs', 'p50'), at(l, 'kubernetesStepMs', 'p99')),
      pair(at(l, 'replyMs', 'p50'), at(l, 'replyMs', 'p99')),
      refusals(at(l, 'replies', 'progress')),
      refusals(at(l, 'replies', 'runRequests')),
      n(l.functionCpuMsPerTransition),
      `${String(at(l, 'busiest', 'name'))} (${fmt(at(l, 'busiest', 'cores'))})`,
      pair(sum(l.cores), l.machineBusyCores),
      pair(l.behindAtWindowEnd, l.unfinished),
    ]),
  };
}

export function replicasSection(f: Tree): Section | undefined {
  if (!f.replicas) return undefined;
  return {
    title:
      'Replicas: N run requests at once, on one function process then on several (the Broker delivers to them in turn); CascadeAutoOperator status writes from the audit log',
    head: [
      'replicas',
      'runs',
      's to the last end',
      'status writes per run',
      '409 per run',
      'operator reads per run',
      'fn requests per run',
      'Lease requests per run',
      'all 409 per run',
      'progress 429 / 5xx',
      'run request 429 / 5xx',
      'step p50 / p99 ms',
      'reply p50 / p99 ms',
    ],
    rows: list(f.replicas).map((l) => [
      n(l.replicas),
      n(l.runs),
      n(l.seconds),
      n(at(l, 'perRun', 'statusWrites')),
      n(at(l, 'perRun', 'conflicts')),
      n(at(l, 'perRun', 'reads')),
      n(at(l, 'perRun', 'requests')),
      n(at(l, 'leasePerRun')),
      n(at(l, 'conflictsPerRun')),
      refusals(at(l, 'replies', 'progress')),
      refusals(at(l, 'replies', 'runRequests')),
      pair(at(l, 'stepMs', 'p50'), at(l, 'stepMs', 'p99')),
      pair(at(l, 'replyMs', 'p50'), at(l, 'replyMs', 'p99')),
    ]),
  };
}

const p50p99 = (d: unknown): Cell => pair(at(d, 'p50'), at(d, 'p99'));

/** Where the Jobs' time went in each replicas level, component by component (bench/job-path-stages.ts). */
export function jobPathSection(f: Tree): Section | undefined {
  if (!f.replicas) return undefined;
  return {
    title:
      "Where a Job's time goes, p50 / p99 ms, from the audit log; and the API server's time to answer the function's writes",
    head: [
      'replicas',
      'kwok takes the pod up',
      'pod runs',
      'Job controller: to Complete',
      'pod bound → Complete',
      'API answer: run create',
      'run status',
      'Job create',
      'operator status',
    ],
    rows: list(f.replicas).map((l) => [
      n(l.replicas),
      p50p99(at(l, 'jobPath', 'toKubelet')),
      p50p99(at(l, 'jobPath', 'podRun')),
      p50p99(at(l, 'jobPath', 'toComplete')),
      p50p99(at(l, 'jobPath', 'whole')),
      p50p99(at(l, 'jobPath', 'answerMs', 'run-create')),
      p50p99(at(l, 'jobPath', 'answerMs', 'run-status')),
      p50p99(at(l, 'jobPath', 'answerMs', 'job-create')),
      p50p99(at(l, 'jobPath', 'answerMs', 'operator-status')),
    ]),
  };
}
