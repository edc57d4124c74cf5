// Vitest global set-up of the `cluster` project: a real control plane for
// the tests. Uses the cluster named by $CASCADE_KUBECONFIG when it answers,
// otherwise starts a private one (own state dir) and stops it afterwards.
// Applies <repo>/crds/ and hands the admin kubeconfig path to the tests
// (inject('kubeconfig') and $KUBECONFIG). Meanwhile finds or builds promtool
// and prometheus (local/prometheus/) and kube-state-metrics
// (local/kube-state-metrics/) and hands their paths to the tests
// (inject('promtool'), inject('prometheus'), inject('kubeStateMetrics')), and
// finds or builds Knative's queue-proxy (local/knative/queue-proxy/) for the ops tests.
// On a first run every other build starts here too (local/prebuild.ts), so
// the real node and Knative are built while the first tests run.
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { apiserverReady } from '../local/cluster/cluster-state.ts';
import { startCluster } from '../local/cluster/cluster.ts';
import { applyCrds } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { ensureKubeStateMetrics } from '../local/kube-state-metrics/kube-state-metrics.ts';
import { ensurePrometheus, ensurePromtool } from '../local/prometheus/binaries.ts';
import { ensureQueueProxy } from '../local/knative/queue-proxy/queue-proxy.ts';
import { prebuild } from '../local/prebuild.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the admin kubeconfig of the test cluster. */
    kubeconfig: string;
    /** Path of the pinned promtool binary. */
    promtool: string;
    /** Path of the pinned prometheus binary (the server). */
    prometheus: string;
    /** Path of the pinned kube-state-metrics binary. */
    kubeStateMetrics: string;
  }
}

const log = (message: string) => process.stderr.write(`${message}\n`);

async function existingCluster(): Promise<string | undefined> {
  const kubeconfig = process.env.CASCADE_KUBECONFIG;
  if (!kubeconfig) return undefined;
  if (await apiserverReady(kubeconfig)) return kubeconfig;
  log(`cluster: CASCADE_KUBECONFIG=${kubeconfig} does not answer /readyz; starting a cluster of our own`);
  return undefined;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // every build starts now; these are awaited once the cluster is up
  void prebuild(true);
  const binaries = Promise.all([ensurePromtool(), ensurePrometheus(), ensureKubeStateMetrics()]).then(
    ([promtool, prometheus, kubeStateMetrics]) => ({ promtool, prometheus, kubeStateMetrics }),
  );
  binaries.catch(() => {});
  const queueProxy = ensureQueueProxy();
  queueProxy.catch(() => {});
  let kubeconfig = await existingCluster();
  let stop = async () => {};
  if (!kubeconfig) {
    const stateDir = join(repoRoot, '.cascade', `test-cluster-${process.pid}`);
    const started = Date.now();
    const cluster = await startCluster({ stateDir, tieToProcess: true, log });
    log(`cluster: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    kubeconfig = cluster.kubeconfig;
    stop = cluster.stop;
  }
  try {
    const crds = await applyCrds(kubeconfig);
    if (crds.length > 0) log(`cluster: applied ${crds.length} CRDs from crds/`);
    const { promtool, prometheus, kubeStateMetrics } = await binaries;
    project.provide('promtool', promtool);
    project.provide('prometheus', prometheus);
    project.provide('kubeStateMetrics', kubeStateMetrics);
    await queueProxy;
  } catch (error) {
    await stop();
    throw error;
  }
  process.env.KUBECONFIG = kubeconfig;
  project.provide('kubeconfig', kubeconfig);
  return stop;
}
