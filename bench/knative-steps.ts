// With `npm start` running:
//   CASCADE_KUBECONFIG=.cascade/cluster/admin.kubeconfig npx node bench/knative-steps.ts
// Runs go through the real Broker to Cascade as `npm start` deployed it, in
// cascade-operator. Two Broker modes: the asynchronous one of
// knative/broker.yaml, then the default synchronous one. In each, for each
// count of BENCH_AT_ONCE (default 1,10,50), that many run requests of a
// 3-module scenario go to the Broker's ingress at once. Its modules are real
// containers that exit at once. Figures:
//   step      a Job seen Complete → the run's next Job seen, on a watch
//   all ended the first request sent → the last run ended
//   requests  the function's own API requests per run, from the audit log
// Then, BENCH_IDLE_SECONDS (default 60) later, the RSS of Eventing's pods.
import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { auditLinesSince, auditLogOf, auditMark, countByClient } from '../test/support/audit-log.ts';
import { createScenario } from '../local/bundled-cluster.ts';
import { watchJobSightings, type JobSighting } from '../test/support/job-sightings.ts';
import { brokerIngressUrl, postEvent, runRequestEvent } from '../local/knative/broker-ingress.ts';
import { recreateBroker } from '../local/knative/cascade-deploy.ts';
import { EVENTING_NAMESPACE } from '../local/knative/eventing/manifests.ts';
import { apiClient, kubeConfigFromFile, sleep, waitFor } from '../local/kube.ts';
import { namespacePlacedModule } from '../local/node/real-modules.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { podRssMiB } from './pod-rss.ts';
import { percentile } from './stats.ts';

const kubeconfig = process.env.CASCADE_KUBECONFIG;
if (!kubeconfig) throw new Error('set CASCADE_KUBECONFIG to the cluster `npm start` runs');
const NAMESPACE = 'cascade-operator';
const SCENARIO = 'bench-steps';
const counts = (process.env.BENCH_AT_ONCE ?? '1,10,50').split(',').map(Number);
const kc = kubeConfigFromFile(kubeconfig);
const custom = apiClient(kc, CustomObjectsApi);
const RUNS = { group: 'cascade.cascade.net', version: 'v1alpha1', namespace: NAMESPACE, plural: 'cascaderuns' };
const log = (m: string) => process.stderr.write(`${m}\n`);

/** Each hand-off: the next step's Job first seen after the step's Job was first seen Complete, in ms. */
function handOffs(jobs: JobSighting[]): number[] {
  const out: number[] = [];
  for (const job of jobs) {
    const next = jobs.find((j) => j.run === job.run && j.step === job.step + 1);
    if (next && job.completeSeen !== undefined) out.push(Math.max(0, next.seen - job.completeSeen));
  }
  return out;
}

async function postRun(url: string, iuid: string): Promise<void> {
  const status = await postEvent(
    url,
    runRequestEvent('cascade.bench/knative-steps', iuid, SCENARIO, 's3://bench/in.tgz'),
  );
  if (status >= 300) throw new Error(`the Broker answered ${status}`);
}

async function ended(iuids: Set<string>): Promise<boolean> {
  const list = (await custom.listNamespacedCustomObject(RUNS)) as { items: CascadeRun[] };
  const done = list.items.filter((r) => iuids.has(r.spec.pid) && r.status?.notified);
  return done.length === iuids.size;
}

/** `n` run requests at once; the figures of that round. */
async function round(url: string, n: number): Promise<string[]> {
  const iuids = new Set(Array.from({ length: n }, () => randomUUID()));
  const audit = auditLogOf(kubeconfig!);
  const mark = auditMark(audit);
  const jobs = watchJobSightings(kubeconfig!, NAMESPACE);
  await jobs.synced;
  const sent = Date.now();
  await Promise.all([...iuids].map((iuid) => postRun(url, iuid)));
  await waitFor(() => ended(iuids), { timeoutMs: 900_000, intervalMs: 500, message: `${n} runs ended` });
  const allEnded = Date.now() - sent;
  const steps = handOffs([...jobs.stop().values()]);
  const user = serviceAccountUser(NAMESPACE, 'cascade-function');
  const fn = countByClient(auditLinesSince(audit, mark), { fn: user })['fn']!;
  const perRun = (v: number) => (v / n).toFixed(1);
  return [
    String(n),
    `${percentile(steps, 50) ?? '–'} / ${percentile(steps, 99) ?? '–'}`,
    `${(allEnded / 1000).toFixed(1)} s`,
    `${perRun(fn.reads)} reads, ${perRun(fn.writes)} writes, ${perRun(fn.events)} Events`,
  ];
}

/** RSS of each Eventing pod, BENCH_IDLE_SECONDS (default 60) after the last run. */
async function idleMemory(): Promise<void> {
  await sleep(Number(process.env.BENCH_IDLE_SECONDS ?? 60) * 1000);
  const pods = (await apiClient(kc, CoreV1Api).listNamespacedPod({ namespace: EVENTING_NAMESPACE })).items;
  let total = 0;
  for (const pod of pods) {
    const mib = podRssMiB(pod.metadata!.uid!);
    total += mib;
    log(`idle RSS ${EVENTING_NAMESPACE}/${pod.metadata!.name}: ${mib.toFixed(0)} MiB`);
  }
  process.stdout.write(`idle RSS of Knative Eventing, ${pods.length} pods: ${total.toFixed(0)} MiB\n`);
}

async function main(): Promise<void> {
  await createScenario(
    kc,
    NAMESPACE,
    SCENARIO,
    ['first', 'second', 'third'].map((name) => namespacePlacedModule(name, {})),
  );
  const url = brokerIngressUrl(NAMESPACE);
  const rows: string[][] = [];
  for (const async of [true, false]) {
    // a Broker's mode is set when it is made: see recreateBroker
    await recreateBroker(kubeconfig!, NAMESPACE, async);
    for (const n of counts) {
      log(`bench: ${n} at once, ${async ? 'asynchronous' : 'synchronous'} Broker`);
      rows.push([async ? 'async' : 'sync', ...(await round(url, n))]);
    }
  }
  await recreateBroker(kubeconfig!, NAMESPACE, true);
  await idleMemory();
  const header = ['Broker', 'runs at once', 'step p50 / p99, ms', 'all ended', "the function's requests per run"];
  const table = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  process.stdout.write(`${table.join('\n')}\n`);
}

await main();
