// `npm run soak -- [--minutes 3] [--rate 0.5]` runs this file in vitest
// (scripts/soak.ts; it is not part of `npm test`). Cascade runs as released on
// real Knative Serving and Eventing on the real node, set up as
// test/support/knative-cascade.ts does. Run requests of a 3-module scenario,
// whose modules are real containers, go to the Broker's ingress at a steady
// rate. Meanwhile the platform's parts are killed in turn and new revisions
// roll out (platform-faults.ts). The janitor's CronJob runs as deployed. At
// the end it waits for every run to end, checks the invariants, times each
// fault to the next step moved, and prints a table; it fails on any violation.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScenario } from '../../local/bundled-cluster.ts';
import { apiserverReady } from '../../local/cluster/cluster-state.ts';
import { startCluster, type RunningCluster } from '../../local/cluster/cluster.ts';
import { repoRoot } from '../../local/cluster/paths.ts';
import { brokerIngressUrl, postEvent, runRequestEvent } from '../../local/knative/broker-ingress.ts';
import { apiClient, oneLine } from '../../local/kube.ts';
import { namespacePlacedModule } from '../../local/node/real-modules.ts';
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { percentile } from '../../bench/stats.ts';
import { useKnativeCascade } from '../support/knative-cascade.ts';
import { adminKubeConfig, adminKubeconfigPath, sleep, useAdminKubeconfig, waitFor } from '../support/kube.ts';
import {
  countersExact,
  endedRight,
  endedWithin,
  faultToNextStep,
  handOffs,
  oneRunPerRequest,
  stepsMadeOnce,
  type JobSeen,
  type Requested,
} from './invariants.ts';
import {
  recordJobUids,
  watchDeadLetters,
  watchJanitor,
  watchRunPids,
  watchSyncMoves,
  type JanitorPass,
} from './knative-record.ts';
import { FAULT_ORDER, injectFault, type PlatformFault } from './platform-faults.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? '3');
const RATE = Number(process.env.SOAK_RATE ?? '0.5');
/** A run must end within 5 minutes of its request: its steps, plus two janitor periods for events lost in a fault. */
const DEADLINE_MS = 300_000;
/** Every kind of fault at least once, at most one a minute. */
const FAULT_EVERY_MS = Math.min(60_000, (MINUTES * 60_000) / (FAULT_ORDER.length + 1));
const SCENARIO = 'soak';
const MODULES = ['first', 'second', 'third'].map((name) => namespacePlacedModule(name, {}));

const say = (line: string) => process.stderr.write(`soak ${new Date().toISOString().slice(11, 19)} ${line}\n`);

interface Fault {
  kind: PlatformFault;
  at: number;
  detail: string;
}

interface Soak {
  ns: string;
  requested: Requested[];
  /** When each request was first sent, by iuid. */
  sent: Map<string, number>;
  /** Sends answered other than 2xx or not at all, then sent again. */
  resent: number;
  /** Requests the ingress took, sent again since no run appeared within a minute. */
  noRun: number;
  /** The runs' request ids, as a watch sees them made. */
  pids: ReturnType<typeof watchRunPids>;
  givenUp: string[];
  faults: Fault[];
}

/** Sends a run request until the Broker's ingress answers 2xx, with backoff; false if it never did. */
async function send(s: Soak, iuid: string): Promise<boolean> {
  const event = runRequestEvent('cascade.soak', iuid, SCENARIO, 's3://soak/in.tgz');
  for (let attempt = 0; attempt < 12; attempt++) {
    const status = await postEvent(brokerIngressUrl(s.ns), event).catch(() => 0);
    if (status >= 200 && status < 300) return true;
    s.resent++;
    await sleep(Math.min(8000, 500 * 2 ** attempt));
  }
  return false;
}

/**
 * Sends a run request as a careful client of the asynchronous Broker does:
 * its 202 says only that the channel took the event, which keeps it in
 * memory. So with no run a minute later it sends it again.
 */
async function request(s: Soak, iuid: string): Promise<void> {
  s.sent.set(iuid, Date.now());
  for (let round = 0; round < 3; round++) {
    if (!(await send(s, iuid))) break;
    if (await s.pids.appears(iuid, 60_000)) return;
    s.noRun++;
  }
  s.givenUp.push(iuid);
}

async function drive(s: Soak, until: number): Promise<void> {
  const sends: Promise<void>[] = [];
  while (Date.now() < until) {
    const iuid = randomUUID();
    s.requested.push({ iuid, cancelled: false, resumed: false });
    sends.push(request(s, iuid));
    await sleep(1000 / RATE);
  }
  await Promise.all(sends);
}

/** One fault every FAULT_EVERY_MS, in FAULT_ORDER's order, the last before `until`. */
async function inject(s: Soak, until: number): Promise<void> {
  for (let round = 0, next = Date.now() + FAULT_EVERY_MS; next < until; round++, next += FAULT_EVERY_MS) {
    await sleep(next - Date.now());
    const kind = FAULT_ORDER[round % FAULT_ORDER.length]!;
    const at = Date.now();
    const detail = await injectFault(kind, s.ns, round).catch((error: unknown) => `failed: ${oneLine(error)}`);
    say(`fault ${round + 1}, ${kind}: ${detail}`);
    s.faults.push({ kind, at, detail });
  }
}

const RUNS = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascaderuns' };

async function listRuns(ns: string): Promise<CascadeRun[]> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  return ((await custom.listNamespacedCustomObject({ ...RUNS, namespace: ns })) as { items: CascadeRun[] }).items;
}

/** The runs once every request's run ended, or as they stand when `timeoutMs` passed. */
async function allEnded(s: Soak, timeoutMs: number): Promise<CascadeRun[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const runs = await listRuns(s.ns).catch(() => []);
    const ended = runs.filter((r) => r.status?.notified).length;
    if (ended >= s.requested.length - s.givenUp.length || Date.now() > until) return runs;
    await sleep(2000);
  }
}

async function operator(ns: string): Promise<CascadeAutoOperator> {
  const custom = apiClient(adminKubeConfig(), CustomObjectsApi);
  return (await custom.getNamespacedCustomObject({
    group: 'cascade.cascade.net',
    version: 'v1alpha1',
    namespace: ns,
    plural: 'cascadeautooperators',
    name: SCENARIO,
  })) as CascadeAutoOperator;
}

/** The operator's counters once they match the runs; they are written after the runs, so given a minute. */
async function counterViolations(ns: string, runs: CascadeRun[]): Promise<string[]> {
  let last: string[] = [];
  await waitFor(
    async () => {
      last = countersExact(await operator(ns), runs);
      return last.length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 2000, message: 'counters exact' },
  ).catch(() => undefined);
  return last;
}

async function violations(s: Soak, runs: CascadeRun[], jobs: JobSeen[], recovery: (number | undefined)[]) {
  return [
    ...oneRunPerRequest(s.requested, runs),
    ...endedRight(s.requested, runs),
    ...stepsMadeOnce(jobs),
    ...endedWithin(s.sent, runs, DEADLINE_MS),
    ...(await counterViolations(s.ns, runs)),
    ...s.givenUp.map((iuid) => `request ${iuid}: no run after every send`),
    ...recovery.flatMap((ms, i) => (ms === undefined ? [`fault ${i + 1}: no step moved after it`] : [])),
  ];
}

const pq = (xs: number[]) => `${percentile(xs, 50) ?? '-'} / ${percentile(xs, 99) ?? '-'} / ${Math.max(0, ...xs)}`;

function table(header: string[], rows: Array<Array<string | number>>): string {
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

interface Tally {
  runs: CascadeRun[];
  jobs: JobSeen[];
  recovery: (number | undefined)[];
  syncMoves: number;
  passes: (JanitorPass | undefined)[];
  deadLetters: string[];
  violations: string[];
  startedAt: number;
  load: string;
}

function report(s: Soak, t: Tally): string {
  const durations = t.runs.flatMap((r) => {
    const ms = Date.parse(r.status?.completionTime ?? '') - (s.sent.get(r.spec.pid) ?? NaN);
    return Number.isFinite(ms) ? [ms] : [];
  });
  const read = t.passes.filter((p) => p !== undefined);
  const sum = (k: 'advanced' | 'finished' | 'errors') => read.reduce((n, p) => n + p[k], 0);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim();
  const faults = t.recovery.filter((x) => x !== undefined);
  const rows: Array<[string, string | number]> = [
    ['commit; minutes, rate (runs/s)', `${commit}; ${MINUTES}, ${RATE}`],
    [
      'runs requested / ended / Succeeded',
      `${s.requested.length} / ${t.runs.filter((r) => r.status?.notified).length} / ${t.runs.filter((r) => r.status?.phase === 'Succeeded').length}`,
    ],
    ['Jobs seen (uids)', t.jobs.length],
    ['faults', `${s.faults.length}, one every ${Math.round(FAULT_EVERY_MS / 1000)} s`],
    ['fault → next step moved, p50 / p99 / max (ms)', pq(faults)],
    ['Job Complete → next Job, p50 / p99 / max (ms)', pq(handOffs(t.jobs))],
    ['request → run ended, p50 / p99 / max (ms)', pq(durations)],
    ['sends answered other than 2xx, then sent again', s.resent],
    ['requests taken, then sent again since no run appeared in 60 s', s.noRun],
    ["moves by the function's first syncs (cascade_sync_moves_total)", t.syncMoves],
    [
      'janitor passes read; runs they advanced / finished; errors',
      `${read.length} of ${t.passes.length}; ${sum('advanced')} / ${sum('finished')}; ${sum('errors')}`,
    ],
    ['events dead-lettered (at least)', t.deadLetters.length],
    ['load average at start / end', `${t.load} / ${loadavg()[0]!.toFixed(1)}`],
    ['violations', t.violations.length],
    ['wall time (s)', Math.round((Date.now() - t.startedAt) / 1000)],
  ];
  const perFault = s.faults.map((f, i) => [
    i + 1,
    new Date(f.at).toISOString().slice(11, 19),
    f.kind,
    t.recovery[i] ?? 'none',
  ]);
  return `${table(['measure', 'value'], rows)}\n\n${table(['#', 'at (UTC)', 'fault', 'next step moved after (ms)'], perFault)}\n`;
}

let cluster: RunningCluster | undefined;
beforeAll(async () => {
  const given = process.env.CASCADE_KUBECONFIG;
  if (given && (await apiserverReady(given))) return useAdminKubeconfig(given);
  const stateDir = join(repoRoot, '.cascade', `soak-cluster-${process.pid}`);
  cluster = await startCluster({ stateDir, tieToProcess: true, log: say });
  useAdminKubeconfig(cluster.kubeconfig);
}, 600_000);
afterAll(async () => {
  await cluster?.stop();
}, 600_000);

const namespace = useKnativeCascade({});

async function soak(): Promise<string[]> {
  const startedAt = Date.now();
  const load = loadavg()[0]!.toFixed(1);
  const ns = namespace();
  const pids = watchRunPids(adminKubeconfigPath(), ns);
  const s: Soak = { ns, requested: [], sent: new Map(), resent: 0, noRun: 0, pids, givenUp: [], faults: [] };
  await createScenario(adminKubeConfig(), s.ns, SCENARIO, MODULES);
  const jobs = recordJobUids(adminKubeconfigPath(), s.ns);
  await Promise.all([jobs.synced, pids.synced]);
  const moves = watchSyncMoves(adminKubeconfigPath(), s.ns);
  const janitor = watchJanitor(s.ns);
  const dead = watchDeadLetters(s.ns);
  const until = Date.now() + MINUTES * 60_000;
  say(`driving ${RATE} run(s)/s for ${MINUTES} min, a fault every ${Math.round(FAULT_EVERY_MS / 1000)} s`);
  await Promise.all([drive(s, until), inject(s, until)]);
  say('faults over: waiting for every run to end');
  const runs = await allEnded(s, DEADLINE_MS + 60_000);
  jobs.stop();
  pids.stop();
  const seen = [...jobs.jobs.values()];
  const recovery = faultToNextStep(
    s.faults.map((f) => f.at),
    seen,
  );
  const found = await violations(s, runs, seen, recovery);
  const passes = await janitor.stop();
  const syncMoves = await moves.stop();
  const deadLetters = await dead.stop();
  const tally = { runs, jobs: seen, recovery, syncMoves, passes, deadLetters, violations: found, startedAt, load };
  process.stdout.write(report(s, tally));
  for (const line of deadLetters.slice(0, 10)) say(`dead letter: ${line.slice(0, 400)}`);
  for (const v of found.slice(0, 50)) say(`violation: ${v}`);
  return found;
}

it(
  `soak on real Knative: ${MINUTES} min at ${RATE} run(s)/s with platform faults; every invariant holds`,
  { timeout: (MINUTES + 20) * 60_000 },
  async () => {
    expect((await soak()).slice(0, 50), 'violations').toEqual([]);
  },
);
