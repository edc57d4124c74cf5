// With `npm start` running:
//   CASCADE_KUBECONFIG=.cascade/cluster/admin.kubeconfig npx node bench/knative-cold.ts
// Cold starts from zero through the real Broker, the activator and a new pod
// of Cascade as `npm start` deployed it, in cascade-operator. Sets Serving's
// stable window and scale-to-zero grace to 6 s for the bench, and puts both
// back after. For each Broker mode of BENCH_COLD_MODES (default sync), it
// sends BENCH_COLD_STARTS (default 10) run requests of a 1-module scenario,
// each once the function has no pod and the run before it ended. Figures:
//   reply     request sent → the Broker's answer. The synchronous Broker
//             answers once the function answered; the asynchronous one at once.
//   run seen  request sent → the CascadeRun seen on a watch.
import { randomUUID } from 'node:crypto';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createScenario } from '../local/bundled-cluster.ts';
import { brokerIngressUrl, postEvent, runRequestEvent } from '../local/knative/broker-ingress.ts';
import { recreateBroker } from '../local/knative/cascade-deploy.ts';
import { servicePods } from '../local/knative/serving/cascade-service.ts';
import { SERVING_NAMESPACE } from '../local/knative/serving/manifests.ts';
import { apiClient, kubeConfigFromFile, waitFor } from '../local/kube.ts';
import { namespacePlacedModule } from '../local/node/real-modules.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { kubeconfigConnection } from '../shared/kube/connect.ts';
import { inform } from '../shared/kube/informer.ts';
import { httpsTransport } from '../shared/kube/watch-stream.ts';
import { percentile } from './stats.ts';

const kubeconfig = process.env.CASCADE_KUBECONFIG;
if (!kubeconfig) throw new Error('set CASCADE_KUBECONFIG to the cluster `npm start` runs');
const NAMESPACE = 'cascade-operator';
const SCENARIO = 'bench-cold';
const tries = Number(process.env.BENCH_COLD_STARTS ?? 10);
const modes = (process.env.BENCH_COLD_MODES ?? 'sync').split(',');
const kc = kubeConfigFromFile(kubeconfig);
const core = apiClient(kc, CoreV1Api);
const QUICK_SCALE_DOWN = { 'stable-window': '6s', 'scale-to-zero-grace-period': '6s' };
const log = (m: string) => process.stderr.write(`${m}\n`);

/** Sets config-autoscaler's keys of `data`; resolves to a function that puts the old values back. */
async function setAutoscaler(data: Record<string, string>): Promise<() => Promise<unknown>> {
  const name = 'config-autoscaler';
  const old = (await core.readNamespacedConfigMap({ namespace: SERVING_NAMESPACE, name })).data ?? {};
  const patch = (values: Record<string, string | null>) =>
    core.patchNamespacedConfigMap(
      { namespace: SERVING_NAMESPACE, name, body: { data: values } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  await patch(data);
  return () => patch(Object.fromEntries(Object.keys(data).map((k) => [k, old[k] ?? null])));
}

/** When each run, by its iuid, was first seen on a watch of the namespace's CascadeRuns; and the runs seen notified. */
async function watchRuns() {
  const seen = new Map<string, number>();
  const notified = new Set<string>();
  const informer = inform({
    transport: httpsTransport(
      kubeconfigConnection(kubeconfig!),
      `/apis/cascade.cascade.net/v1alpha1/namespaces/${NAMESPACE}/cascaderuns`,
      {},
    ),
    on: (change, object) => {
      const run = object as CascadeRun;
      const pid = run.spec?.pid;
      if (change === 'DELETED' || !pid) return;
      if (!seen.has(pid)) seen.set(pid, performance.now());
      if (run.status?.notified) notified.add(pid);
    },
  });
  await informer.synced;
  return { seen, notified, stop: () => informer.stop() };
}

/** One cold start: waits for no pod, sends a run request; its reply and run-seen times, in ms. */
async function coldStart(url: string, runs: Awaited<ReturnType<typeof watchRuns>>): Promise<[number, number]> {
  await waitFor(async () => (await servicePods(kubeconfig!, NAMESPACE, 'cascade')).length === 0, {
    timeoutMs: 300_000,
    intervalMs: 500,
    message: 'the function has no pod',
  });
  const iuid = randomUUID();
  const event = runRequestEvent('cascade.bench/cold', iuid, SCENARIO, 's3://bench/in.tgz');
  const sent = performance.now();
  const status = await postEvent(url, event);
  const reply = performance.now() - sent;
  if (status >= 300) throw new Error(`the Broker answered ${status}`);
  await waitFor(async () => runs.seen.has(iuid), { timeoutMs: 120_000, intervalMs: 20, message: 'the run seen' });
  await waitFor(async () => runs.notified.has(iuid), { timeoutMs: 300_000, intervalMs: 100, message: 'the run ended' });
  return [reply, runs.seen.get(iuid)! - sent];
}

const summary = (samples: number[]) => {
  const ms = (v: number | undefined) => (v ?? NaN).toFixed(0);
  return `${ms(percentile(samples, 50))} / ${ms(percentile(samples, 90))} (${ms(Math.min(...samples))}–${ms(Math.max(...samples))})`;
};

async function main(): Promise<void> {
  await createScenario(kc, NAMESPACE, SCENARIO, [namespacePlacedModule('only', {})]);
  const url = brokerIngressUrl(NAMESPACE);
  const restore = await setAutoscaler(QUICK_SCALE_DOWN);
  const runs = await watchRuns();
  const rows: string[][] = [];
  try {
    for (const mode of modes) {
      await recreateBroker(kubeconfig!, NAMESPACE, mode === 'async');
      const replies: number[] = [];
      const seen: number[] = [];
      for (let i = 0; i < tries; i++) {
        const [reply, run] = await coldStart(url, runs);
        replies.push(reply);
        seen.push(run);
        log(`${mode} cold start ${i + 1}/${tries}: reply ${reply.toFixed(0)} ms, run seen ${run.toFixed(0)} ms`);
      }
      rows.push([mode, String(tries), summary(replies), summary(seen)]);
    }
  } finally {
    runs.stop();
    await restore();
    // npm start's Broker is the asynchronous one of knative/broker.yaml
    await recreateBroker(kubeconfig!, NAMESPACE, true);
  }
  const header = ['Broker', 'cold starts', 'reply p50 / p90 (min–max), ms', 'run seen p50 / p90 (min–max), ms'];
  const table = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  process.stdout.write(`${table.join('\n')}\n`);
}

await main();
