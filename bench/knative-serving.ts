// `npx node bench/knative-serving.ts`: Cascade's Knative Service on real
// Knative Serving (local/knative/serving/) on $CASCADE_KUBECONFIG's cluster,
// whose real node runs and holds the function's image (the real-node tests
// import it). Installs Serving with the tests' 6 s stable window, then:
//   cold start  request sent → reply, for BENCH_COLD_STARTS (default 10)
//               requests, each once the function has no pod. Each goes
//               through CoreDNS, Traefik, the activator, a new pod and
//               queue-proxy.
//   idle memory RSS of each Serving and Traefik pod's processes, from the
//               node's memory cgroups, BENCH_IDLE_SECONDS (default 60) after
//               the last request.
import { CoreV1Api } from '@kubernetes/client-node';
import { apiClient, createNamespace, deleteNamespace, kubeConfigFromFile, sleep, waitFor } from '../local/kube.ts';
import { podRssMiB } from './pod-rss.ts';
import { percentile } from './stats.ts';
import {
  applyCascadeService,
  condition,
  deleteCascadeService,
  getInCluster,
  getKnative,
  servicePods,
} from '../local/knative/serving/cascade-service.ts';
import { installServing } from '../local/knative/serving/install.ts';
import { SERVING_NAMESPACE } from '../local/knative/serving/manifests.ts';
import { TRAEFIK_NAMESPACE } from '../local/knative/serving/traefik.ts';

const kubeconfig = process.env.CASCADE_KUBECONFIG;
if (!kubeconfig) throw new Error('set CASCADE_KUBECONFIG to a cluster whose real node runs');
const tries = Number(process.env.BENCH_COLD_STARTS ?? 10);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const log = (m: string) => process.stderr.write(`${m}\n`);

await installServing(kubeconfig, { autoscaler: { 'stable-window': '6s', 'scale-to-zero-grace-period': '6s' }, log });
const kc = kubeConfigFromFile(kubeconfig);
const ns = await createNamespace(kc, 'bench-knative');
try {
  await applyCascadeService(kubeconfig, ns);
  const ref = { group: 'serving.knative.dev', plural: 'services', namespace: ns, name: 'cascade' };
  await waitFor(async () => condition(await getKnative(kubeconfig, ref), 'Ready')?.status === 'True', {
    timeoutMs: 300_000,
    intervalMs: 1000,
    message: 'Service cascade Ready',
  });
  const url = `http://cascade.${ns}.svc.cluster.local`;
  const samples: number[] = [];
  for (let i = 0; i < tries; i++) {
    await waitFor(async () => (await servicePods(kubeconfig, ns, 'cascade')).length === 0, {
      timeoutMs: 300_000,
      intervalMs: 500,
      message: 'no pod',
    });
    const started = performance.now();
    const reply = await getInCluster(url, '/healthz');
    const ms = performance.now() - started;
    if (reply.status !== 200) throw new Error(`cold request answered ${reply.status}: ${reply.body}`);
    samples.push(ms);
    log(`cold start ${i + 1}/${tries}: ${ms.toFixed(0)} ms`);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(
    `cold start from zero, ${tries} requests: p50 ${percentile(sorted, 50)!.toFixed(0)} ms, p90 ${percentile(sorted, 90)!.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)}`,
  );
  await sleep(idleSeconds * 1000);
  const core = apiClient(kc, CoreV1Api);
  let total = 0;
  for (const namespace of [SERVING_NAMESPACE, TRAEFIK_NAMESPACE]) {
    for (const pod of (await core.listNamespacedPod({ namespace })).items) {
      const mib = podRssMiB(pod.metadata!.uid!);
      total += mib;
      console.log(`idle RSS ${namespace}/${pod.metadata!.name}: ${mib.toFixed(0)} MiB`);
    }
  }
  console.log(`idle RSS of Serving and Traefik: ${total.toFixed(0)} MiB`);
} finally {
  await deleteCascadeService(kubeconfig, ns);
  await deleteNamespace(kc, ns);
}
