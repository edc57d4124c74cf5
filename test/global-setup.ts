// Vitest global set-up of the `cluster` and `real-node` projects: a real
// control plane, one per vitest process, started by the first project's
// set-up and stopped by the last one's teardown. Uses the cluster named by
// $CASCADE_KUBECONFIG when it answers, otherwise starts a private one (own
// state dir). Applies <repo>/crds/ and hands the admin kubeconfig path to the
// tests (inject('kubeconfig') and $KUBECONFIG).
// On a first run every other build starts here too, below the control plane's
// priority (local/prebuild.ts). The `real-node` project's files need them from
// their first test on, so its set-up waits for them; in the other projects the
// tests that need one await it, and run last (scripts/test-run/sequencer.ts).
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { apiserverReady } from '../local/cluster/cluster-state.ts';
import { startCluster } from '../local/cluster/cluster.ts';
import { applyCrds } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { prebuild } from '../local/prebuild.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the admin kubeconfig of the test cluster. */
    kubeconfig: string;
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

/** The kubeconfig of the tests' cluster, and how to stop what the set-up started. */
interface TestCluster {
  kubeconfig: string;
  stop: () => Promise<void>;
}

async function startTestCluster(): Promise<TestCluster> {
  let kubeconfig = await existingCluster();
  let stop = async () => {};
  if (!kubeconfig) {
    const stateDir = join(repoRoot, '.cascade', `test-cluster-${process.pid}`);
    const started = Date.now();
    const cluster = await startCluster({ stateDir, tieToProcess: true, log });
    log(`cluster: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    ({ kubeconfig, stop } = cluster);
  }
  try {
    const crds = await applyCrds(kubeconfig);
    if (crds.length > 0) log(`cluster: applied ${crds.length} CRDs from crds/`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { kubeconfig, stop };
}

/** The builds and the cluster the projects of one vitest process share. */
interface Shared {
  builds: Promise<void>;
  cluster: Promise<TestCluster>;
  users: number;
}
const SHARED = Symbol.for('cascade.test-cluster');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as { [SHARED]?: Shared };
  const shared = (holder[SHARED] ??= { builds: prebuild(true), cluster: startTestCluster(), users: 0 });
  shared.users += 1;
  const { kubeconfig, stop } = await shared.cluster;
  if (project.name === 'real-node') await shared.builds;
  process.env.KUBECONFIG = kubeconfig;
  project.provide('kubeconfig', kubeconfig);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) await stop();
  };
}
