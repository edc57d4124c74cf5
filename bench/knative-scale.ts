// With `npm start` running:
//   CASCADE_KUBECONFIG=.cascade/cluster/admin.kubeconfig npx node bench/knative-scale.ts
// Runs go through the real, asynchronous Broker to Cascade as `npm start`
// deployed it, in cascade-operator. For each count of BENCH_AT_ONCE (default
// 10,100,500,1000), that many run requests of a 3-module scenario go to the
// Broker's ingress at once, BENCH_SENDERS (default 100) in flight. The
// modules' pods run on kwok's nodes and end at once. The Service `cascade`
// gets a low concurrency target for the bench (SCALE_SERVICE), so Knative's
// autoscaler runs it on up to 5 pods; it is put back at the end. Figures:
//   all ended   the first request sent → the last run seen ended
//   step        a Job seen Complete → the run's next Job seen, on a watch
//   pods        the most function pods Ready at once
//   requests    the function's own API requests per run, from the audit log
//   fn CPU      the function pods' CPU per run, from their cgroups
//   API CPU     the kube-apiserver's CPU per run, from /proc; and less its idle rate
// Costs run from the first request sent to every Job of the round deleted.
// The scenario's runs are deleted before the first round and after each.
// Each run must end Succeeded, each step's Job and pod made once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { countByClient } from '../test/support/audit-log.ts';
import { conflictsByVerb } from './sustained-figures.ts';
import {
  handOffs,
  recordScale,
  runsOf,
  SCALE_MODULES,
  SCALE_SERVICE,
  stepProblems,
  uniqueIuids,
  type ScaleRecord,
} from '../test/support/knative-scale.ts';
import { apiserverCpuSeconds, sampleCpu, tailAudit } from '../test/support/scale-costs.ts';
import { createScenario } from '../local/bundled-cluster.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { brokerIngressUrl, postEvent, runRequestEvent } from '../local/knative/broker-ingress.ts';
import { apiClient, kubeConfigFromFile, sleep, waitFor } from '../local/kube.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { percentile } from './stats.ts';

const kubeconfig = process.env.CASCADE_KUBECONFIG ?? '';
if (!kubeconfig) throw new Error('set CASCADE_KUBECONFIG to the cluster `npm start` runs');
const NAMESPACE = process.env.BENCH_NAMESPACE ?? 'cascade-operator';
const SCENARIO = 'bench-scale';
const counts = (process.env.BENCH_AT_ONCE ?? '10,100,500,1000').split(',').map(Number);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 100);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MINUTES ?? 40) * 60_000;
const IDLE_MS = 30_000;
const kc = kubeConfigFromFile(kubeconfig);
const custom = apiClient(kc, CustomObjectsApi);
const SERVICE = { group: 'serving.knative.dev', version: 'v1', namespace: NAMESPACE, plural: 'services' };
const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

interface Template {
  metadata?: { annotations?: Record<string, string> };
  spec: { containers: { env?: { name: string }[] }[] };
}

interface KnativeService {
  metadata: { generation: number };
  spec: { template: Template };
  status?: {
    observedGeneration?: number;
    latestReadyRevisionName?: string;
    latestCreatedRevisionName?: string;
    conditions?: { type: string; status: string }[];
  };
}

const readService = async () =>
  (await custom.getNamespacedCustomObject({ ...SERVICE, name: 'cascade' })) as KnativeService;

/** Patches the Service `cascade` and waits until its new revision is Ready. */
async function patchService(patch: object[]): Promise<void> {
  await custom.patchNamespacedCustomObject(
    { ...SERVICE, name: 'cascade', body: patch },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  await waitFor(
    async () => {
      const s = await readService();
      const ready = s.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return (
        s.status?.observedGeneration === s.metadata.generation &&
        ready &&
        s.status.latestReadyRevisionName === s.status.latestCreatedRevisionName
      );
    },
    { timeoutMs: 300_000, intervalMs: 1000, message: 'the Service cascade Ready on its new revision' },
  );
}

/** `template` with the bench's annotations and variables (SCALE_SERVICE), each once, whatever it held. */
function benchTemplate(template: Template): Template {
  const copy = structuredClone(template);
  const env = SCALE_SERVICE.env ?? {};
  copy.metadata = { ...copy.metadata, annotations: { ...copy.metadata?.annotations, ...SCALE_SERVICE.annotations } };
  const container = copy.spec.containers[0]!;
  container.env = [
    ...(container.env ?? []).filter((e) => !(e.name in env)),
    ...Object.entries(env).map(([name, value]) => ({ name, value })),
  ];
  return copy;
}

async function postRun(url: string, iuid: string): Promise<void> {
  const status = await postEvent(
    url,
    runRequestEvent('cascade.bench/knative-scale', iuid, SCENARIO, 's3://bench/in.tgz'),
  );
  if (status >= 300) throw new Error(`the Broker answered ${status}`);
}

/** `work` on each of `items`, `limit` at a time. */
async function eachAtOnce<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  const worker = async () => {
    while (i < items.length) await work(items[i++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Sends every request, `SENDERS` at a time. */
async function sendAll(iuids: string[]): Promise<void> {
  const url = brokerIngressUrl(NAMESPACE);
  await eachAtOnce(iuids, SENDERS, (iuid) => postRun(url, iuid));
}

const RUNS = { group: 'cascade.cascade.net', version: 'v1alpha1', namespace: NAMESPACE, plural: 'cascaderuns' };

/** Deletes every run of the bench's scenario, 20 at a time, so that each round starts with none (not counted). */
async function removeRuns(): Promise<void> {
  const list = (await custom.listNamespacedCustomObject(RUNS)) as { items: { metadata: { name: string } }[] };
  const names = list.items.map((r) => r.metadata.name).filter((name) => name.startsWith(`${SCENARIO}-`));
  await eachAtOnce(names, 20, (name) => custom.deleteNamespacedCustomObject({ ...RUNS, name }).catch(() => {}));
  log(`bench: ${names.length} runs of ${SCENARIO} deleted`);
}

/** The kube-apiserver's cores at idle, over IDLE_MS. */
async function idleCores(): Promise<number> {
  const before = apiserverCpuSeconds(kubeconfig);
  await sleep(IDLE_MS);
  return (apiserverCpuSeconds(kubeconfig) - before) / (IDLE_MS / 1000);
}

/** Waits until every run of `iuids` ended, then until each of its Jobs was deleted; the time of the last end. */
async function waitEnded(record: ScaleRecord, iuids: string[]): Promise<number> {
  await waitFor(
    () => {
      const runs = runsOf(record, iuids);
      return runs.size === iuids.length && [...runs.values()].every((r) => record.ended.has(r.metadata.name));
    },
    { timeoutMs: TIMEOUT_MS, intervalMs: 1000, message: `${iuids.length} runs ended` },
  );
  const runs = [...runsOf(record, iuids).values()];
  const jobs = runs.flatMap((r) => (r.status?.modules ?? []).map((m) => m.jobName ?? ''));
  await waitFor(() => jobs.every((name) => record.deleted.has(name)), {
    timeoutMs: 300_000,
    intervalMs: 1000,
    message: `the Jobs of ${iuids.length} runs deleted`,
  }).catch((error: unknown) => log(`bench: ${(error as Error).message}`));
  return Math.max(...runs.map((r) => record.ended.get(r.metadata.name)!));
}

interface Round {
  atOnce: number;
  allEndedS: number;
  stepMs: { p50?: number; p99?: number; n: number };
  mostPods: number;
  perRun: { reads: number; writes: number; events: number; fnCpuS: number; podCpuS: number };
  /** The function's requests by "resource verb", and those refused with 409, in the round: in the results file. */
  byVerb: Record<string, number>;
  conflictsByVerb: Record<string, number>;
  apiCpuPerRunS: number;
  apiCpuLessIdlePerRunS: number;
  windowS: number;
  problems: string[];
}

/** `n` run requests at once, each to its end; the round's figures. */
async function round(n: number, idle: number): Promise<Round> {
  const iuids = uniqueIuids(n);
  const recorder = recordScale(kubeconfig, NAMESPACE);
  await recorder.synced;
  const audit = tailAudit(kubeconfig, serviceAccountUser(NAMESPACE, 'cascade-function'));
  const cpu = sampleCpu(() => recorder.record.functionPods);
  const api0 = apiserverCpuSeconds(kubeconfig);
  const sent = Date.now();
  await sendAll(iuids);
  log(`bench: ${n} sent in ${Date.now() - sent} ms`);
  const lastEnded = await waitEnded(recorder.record, iuids);
  const windowS = (Date.now() - sent) / 1000;
  const api = apiserverCpuSeconds(kubeconfig) - api0;
  const { fn, pod } = cpu.stop();
  const fnUser = serviceAccountUser(NAMESPACE, 'cascade-function');
  const lines = audit.stop();
  const requests = countByClient(lines, { fn: fnUser })['fn']!;
  const record = recorder.stop();
  const runs = new Set([...runsOf(record, iuids).values()].map((r) => r.metadata.name));
  const steps = handOffs([...record.sightings.values()].filter((s) => runs.has(s.run)));
  return {
    atOnce: n,
    allEndedS: (lastEnded - sent) / 1000,
    stepMs: { p50: percentile(steps, 50), p99: percentile(steps, 99), n: steps.length },
    mostPods: record.mostReady,
    perRun: {
      reads: requests.reads / n,
      writes: requests.writes / n,
      events: requests.events / n,
      fnCpuS: fn / n,
      podCpuS: pod / n,
    },
    byVerb: requests.byVerb,
    conflictsByVerb: conflictsByVerb(lines, fnUser),
    apiCpuPerRunS: api / n,
    apiCpuLessIdlePerRunS: (api - idle * windowS) / n,
    windowS,
    problems: stepProblems(record, iuids, SCALE_MODULES.length),
  };
}

const f = (v: number, digits = 2) => v.toFixed(digits);

function row(r: Round): string[] {
  const p = r.perRun;
  return [
    String(r.atOnce),
    `${f(r.allEndedS, 1)} s`,
    `${r.stepMs.p50 ?? '–'} / ${r.stepMs.p99 ?? '–'}`,
    String(r.mostPods),
    `${f(p.reads, 1)} reads, ${f(p.writes, 1)} writes, ${f(p.events, 1)} Events`,
    `${f(p.fnCpuS, 3)} / ${f(p.podCpuS, 3)}`,
    `${f(r.apiCpuPerRunS, 3)} / ${f(r.apiCpuLessIdlePerRunS, 3)}`,
    r.problems.length === 0 ? 'yes' : `no: ${r.problems.length}`,
  ];
}

function report(rounds: Round[], idle: number): void {
  const header = [
    'at once',
    'all ended',
    'step p50 / p99, ms',
    'most function pods Ready',
    "the function's requests per run",
    'function CPU s per run: container / pod',
    'API server CPU s per run: all / less idle',
    'each step once',
  ];
  const table = [header, header.map(() => '---'), ...rounds.map(row)].map((r) => `| ${r.join(' | ')} |`);
  process.stdout.write(`${table.join('\n')}\nthe API server at idle: ${f(idle, 3)} cores\n`);
  for (const r of rounds) for (const p of r.problems.slice(0, 20)) process.stdout.write(`${r.atOnce}: ${p}\n`);
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `knative-scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ idleApiCores: idle, service: SCALE_SERVICE, rounds }, null, 2));
  log(`bench: ${file}`);
}

async function main(): Promise<void> {
  await createScenario(kc, NAMESPACE, SCENARIO, SCALE_MODULES);
  const template = (await readService()).spec.template;
  log('bench: the Service cascade gets the bench overlay');
  await patchService([{ op: 'replace', path: '/spec/template', value: benchTemplate(template) }]);
  const rounds: Round[] = [];
  let idle = 0;
  try {
    await removeRuns();
    idle = await idleCores();
    for (const n of counts) {
      log(`bench: ${n} at once`);
      rounds.push(await round(n, idle));
      log(`bench: ${JSON.stringify(rounds.at(-1))}`);
      await removeRuns();
    }
  } finally {
    log('bench: the Service cascade put back');
    await patchService([{ op: 'replace', path: '/spec/template', value: template }]);
    report(rounds, idle);
  }
}

await main();
