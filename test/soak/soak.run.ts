// `npm run soak -- --stand-ins [--minutes 3] [--rate 0.5]` runs this file in vitest
// (scripts/soak.ts; it is not part of `npm test`). Runs go through the Broker
// stand-in without a pause, on a private local control plane, while faults
// are injected (test/soak/faults.ts). Two function replicas, two
// ApiServerSources (every Job change arrives twice), a queue limit of 8, a
// K_SINK that fails or stalls some run-end events, the janitor every 20 s.
// At the end it waits for every run to end, checks the invariants
// (test/soak/invariants.ts) and prints a table; the test fails on any violation.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { MODULE_FINISHED, RUN_CANCEL_REQUESTED, RUN_REQUESTED, RUN_RESUME_REQUESTED } from '../../shared/api/events.ts';
import { startCluster, type RunningCluster } from '../../local/cluster/cluster.ts';
import { applyCrds } from '../../local/cluster/crds.ts';
import { repoRoot } from '../../local/cluster/paths.ts';
import { successScenario } from '../fixtures/scenarios.ts';
import { cascadeHarness, SCENARIO, type Harness } from '../support/cascade-harness.ts';
import { etcdHistory } from '../support/etcd-history.ts';
import { janitorEnv, runJanitorProcess } from '../support/janitor.ts';
import { sleep, useAdminKubeconfig } from '../support/kube.ts';
import { whereRunsStand } from '../support/where-runs-stand.ts';
import {
  flakySink,
  forgeJobEvent,
  keepClusterLogs,
  keepLog,
  killReplica,
  noFaults,
  restartComponent,
  type FaultCounts,
} from './faults.ts';
import {
  countersExact,
  endedRight,
  jobsCreatedOnce,
  oneRunPerRequest,
  runEndEventsDelivered,
  stepGaps,
  type Requested,
} from './invariants.ts';
import { percentile } from '../../bench/stats.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? '3');
const RATE = Number(process.env.SOAK_RATE ?? '0.5');

const say = (line: string) => process.stderr.write(`soak ${new Date().toISOString().slice(11, 19)} ${line}\n`);
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const iuid = (i: number) => `${(0x10000 + i).toString(16)}-soak-${i}`;
const runOf = (i: number) => `${SCENARIO}-${iuid(i).slice(0, 5)}`;

interface Soak {
  h: Harness;
  counts: FaultCounts;
  requested: Requested[];
  /** Sends answered other than 2xx, then sent again. */
  resent: number;
  /** Events the Broker never took, after every try. */
  givenUp: string[];
  /** The ids of each request's run-request events. */
  ids: Map<string, string[]>;
  /** Where the function processes' output is kept. */
  logDir: string;
  stopping: boolean;
}

/**
 * Sends as a careful client does: the same event again, with backoff, until
 * the Broker answers 2xx. The synchronous Broker answers an error when its
 * own retries to the function failed, say through an outage.
 */
async function deliver(s: Soak, type: string, data: unknown, iuid?: string): Promise<void> {
  const id = randomUUID();
  if (iuid) s.ids.set(iuid, [...(s.ids.get(iuid) ?? []), id]);
  for (let attempt = 0; attempt < 12; attempt++) {
    const status = await s.h.deliver(type, data, id).catch(() => 0);
    if (status >= 200 && status < 300) return;
    s.resent++;
    await sleep(Math.min(8000, 500 * 2 ** attempt));
  }
  s.givenUp.push(`${type} ${JSON.stringify(data)}`);
}

/** One run request, sometimes twice; some runs are cancelled, some of those resumed, some get a late module result. */
async function oneRun(s: Soak, i: number): Promise<void> {
  const r: Requested = { iuid: iuid(i), cancelled: Math.random() < 0.1, resumed: false };
  s.requested.push(r);
  const body = { turlinfo: `s3://in/${i}.tgz`, iuid: r.iuid, oname: 'org', sname: 'src' };
  const twice = Math.random() < 0.3;
  if (twice) s.counts.duplicates++;
  await Promise.all([
    deliver(s, RUN_REQUESTED, body, r.iuid),
    twice ? deliver(s, RUN_REQUESTED, body, r.iuid) : undefined,
  ]);
  if (r.cancelled) {
    await sleep(between(0, 3000));
    s.counts.cancels++;
    await deliver(s, RUN_CANCEL_REQUESTED, { runname: runOf(i) });
    if (Math.random() < 0.5) await resumeOnceCancelled(s, r, i);
  } else if (Math.random() < 0.1) {
    await waitEnded(s, i, 120_000);
    s.counts.late++;
    await deliver(s, MODULE_FINISHED, { runname: runOf(i), modulename: 'grayscale', moduleresult: 'success' });
  }
}

async function waitEnded(s: Soak, i: number, timeoutMs: number): Promise<CascadeRun | undefined> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const run = await s.h.getRun(runOf(i)).catch(() => undefined);
    if (run?.status?.notified) return run;
    await sleep(1000);
  }
  return undefined;
}

async function resumeOnceCancelled(s: Soak, r: Requested, i: number): Promise<void> {
  const run = await waitEnded(s, i, 120_000);
  if (run?.status?.phase !== 'Cancelled') return;
  r.resumed = true;
  s.counts.resumes++;
  await deliver(s, RUN_RESUME_REQUESTED, { runname: runOf(i) });
}

async function drive(s: Soak, until: number): Promise<Promise<void>[]> {
  const runs: Promise<void>[] = [];
  for (let i = 0; Date.now() < until; i++) {
    runs.push(oneRun(s, i));
    await sleep(1000 / RATE);
  }
  return runs;
}

/** Faults until `until`: a kill every 5–30 s, a forged event every 10 s, the API server at 1/3 and etcd at 2/3 of the time. */
async function inject(s: Soak, cluster: RunningCluster, until: number): Promise<void> {
  const start = Date.now();
  const outages: Array<['kube-apiserver' | 'etcd', number]> = [
    ['kube-apiserver', start + (until - start) / 3],
    ['etcd', start + (2 * (until - start)) / 3],
  ];
  let nextKill = Date.now() + between(5000, 30_000);
  while (Date.now() < until) {
    await sleep(10_000);
    await forgeJobEvent(s.h, runOf(Math.floor(Math.random() * s.requested.length)), s.counts);
    if (Date.now() >= nextKill) {
      await killReplica(s.h, Math.floor(Math.random() * s.h.fns.length), s.counts, s.logDir);
      nextKill = Date.now() + between(5000, 30_000);
    }
    const due = outages.findIndex(([, at]) => Date.now() >= at);
    if (due >= 0) {
      const [component] = outages.splice(due, 1)[0]!;
      say(`${component} stopped for 5 s`);
      await restartComponent(cluster, component, 5000, s.counts);
    }
  }
}

async function sweepEvery(s: Soak, env: Record<string, string>, ms: number): Promise<void> {
  while (!s.stopping) {
    await sleep(ms);
    const exit = await runJanitorProcess(env);
    s.counts.sweeps++;
    if (exit.code !== 0) say(`janitor exit ${exit.code}: ${exit.stdout.trim()}`);
  }
}

async function allEnded(s: Soak, timeoutMs: number): Promise<CascadeRun[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const runs = await s.h.listRuns().catch(() => []);
    const left = runs.filter((r) => !r.status?.notified);
    if (left.length === 0 && runs.length > 0) return runs;
    if (Date.now() > until) {
      say(
        `not ended after ${timeoutMs / 1000} s: ${left.map((r) => `${r.metadata.name} ${r.status?.phase}`).join(', ')}`,
      );
      const where = await whereRunsStand(s.h.ns, left.slice(0, 20)).catch((error: unknown) => [String(error)]);
      for (const line of where) say(`where it stands: ${line}`);
      return runs;
    }
    await sleep(2000);
  }
}

/** The Broker's attempts for the run-request events of the request a violation names. */
function whatTheBrokerDid(s: Soak, violation: string): string {
  const iuid = violation.replace(/^request /, '').replace(/: 0 runs$/, '');
  const ids = new Set(s.ids.get(iuid) ?? []);
  const attempts = s.h.broker.attempts.filter((a) => ids.has(a.id));
  return attempts
    .map((a) => `#${a.attempt} ${a.target} ${a.status ?? 'no answer'} ${a.outcome} ${a.detail ?? ''}`)
    .join('; ');
}

function table(rows: Array<[string, string | number]>): string {
  return ['| measure | value |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
}

let cluster: RunningCluster | undefined;
beforeAll(async () => {
  cluster = await startCluster({
    stateDir: join(repoRoot, '.cascade', `soak-cluster-${process.pid}`),
    tieToProcess: true,
    log: say,
  });
  await applyCrds(cluster.kubeconfig);
  useAdminKubeconfig(cluster.kubeconfig);
});
afterAll(async () => {
  useAdminKubeconfig(undefined);
  await cluster?.stop();
});

async function soak(cluster: RunningCluster): Promise<string[]> {
  const startedAt = Date.now();
  const counts = noFaults();
  const sink = await flakySink(counts);
  const h = await cascadeHarness({
    modules: successScenario(300),
    replicas: 2,
    source: 2,
    faults: true,
    // Knative's retry schedule of knative/broker.yaml, not the tests' shortened one.
    backoffScale: 1,
    operatorSpec: { maxConcurrentRuns: 8 },
    env: { K_SINK: sink.url },
  });
  const jobs = await etcdHistory(`http://127.0.0.1:${cluster.ports.etcdClient}`, `/registry/jobs/${h.ns}/`);
  const s: Soak = {
    h,
    counts,
    requested: [],
    resent: 0,
    givenUp: [],
    ids: new Map(),
    logDir: join(repoRoot, '.cascade', `soak-logs-${process.pid}`),
    stopping: false,
  };
  const sweeps = sweepEvery(s, await janitorEnv(h.ns, { K_SINK: sink.url }), 20_000);
  const until = Date.now() + MINUTES * 60_000;
  say(`driving ${RATE} run(s)/s for ${MINUTES} min with faults`);
  const [runs] = await Promise.all([drive(s, until), inject(s, cluster, until)]);
  await Promise.all(runs);
  say('faults over: waiting for every run to end');
  const ended = await allEnded(s, 300_000);
  s.stopping = true;
  await sweeps;
  const violations = [
    ...oneRunPerRequest(s.requested, ended),
    ...endedRight(s.requested, ended),
    ...jobsCreatedOnce(jobs.created),
    ...countersExact(await h.operator(), ended),
    ...runEndEventsDelivered(ended, sink.accepted),
    ...(jobs.lost() ? [`etcd history lost: ${jobs.lost()}`] : []),
    ...h.deadLetters.received.map(
      (e) =>
        `dead-lettered: ${e.attributes.type} ${Buffer.from(e.data ?? [])
          .toString()
          .slice(0, 160)}`,
    ),
  ];
  const gaps = stepGaps(ended);
  for (const fn of h.fns) await keepLog(fn, s.logDir);
  say(`control plane: ${(await keepClusterLogs(cluster, s.logDir)).join(', ')}; logs kept in ${s.logDir}`);
  for (const v of violations.filter((x) => x.endsWith(': 0 runs'))) say(`${v}: ${whatTheBrokerDid(s, v)}`);
  jobs.stop();
  await h.stop();
  sink.close();
  process.stdout.write(
    `${table([
      ['minutes, rate (runs/s)', `${MINUTES}, ${RATE}`],
      ['runs requested / ended', `${s.requested.length} / ${ended.filter((r) => r.status?.notified).length}`],
      ['kill -9 of a replica', counts.kills],
      ['API server restarts / etcd restarts', `${counts.apiserverRestarts} / ${counts.etcdRestarts}`],
      ['run requests sent twice', counts.duplicates],
      ['late module results', counts.late],
      ['forged Job events', counts.forged],
      ['cancels / resumes', `${counts.cancels} / ${counts.resumes}`],
      ['janitor sweeps', counts.sweeps],
      ['K_SINK answers 500 / held 3 s', `${counts.sinkFailed} / ${counts.sinkSlow}`],
      ['sends answered non-2xx, then sent again', s.resent],
      ['events dead-lettered', h.deadLetters.received.length],
      ['step gap p50 / p99 (ms)', `${percentile(gaps, 50) ?? '-'} / ${percentile(gaps, 99) ?? '-'}`],
      ['violations', violations.length],
      ['wall time (s)', Math.round((Date.now() - startedAt) / 1000)],
    ])}\n`,
  );
  return violations;
}

it(
  `soak: ${MINUTES} min at ${RATE} run(s)/s with faults; every invariant holds`,
  { timeout: (MINUTES + 15) * 60_000 },
  async () => {
    const violations = await soak(cluster!);
    expect(violations.slice(0, 50), 'violations').toEqual([]);
  },
);
