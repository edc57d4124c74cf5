// What the real-Knative soak records while it runs: every run Job by its uid
// from one watch over the whole soak, the function pods' first-sync moves from
// their metrics, and each janitor pass's summary from its pod's log.
import { CoreV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { servicePods } from '../../local/knative/serving/cascade-service.ts';
import { apiClient, sleep } from '../../local/kube.ts';
import { forwardThroughDoor } from '../../local/node/door.ts';
import { REAL_NODE } from '../../local/node/node-config.ts';
import { kubeconfigConnection } from '../../shared/kube/connect.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { LABEL_RUN, LABEL_STEP } from '../../shared/names.ts';
import { adminKubeConfig } from '../support/kube.ts';
import { parseMetrics, samples, scrape } from '../support/ops.ts';
import type { JobSeen } from './invariants.ts';

const complete = (job: V1Job) => job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');

/** Every run Job of `namespace` the watch sees, by uid, with when it was first seen and first seen Complete. */
export function recordJobUids(kubeconfig: string, namespace: string) {
  const jobs = new Map<string, JobSeen>();
  const informer = inform({
    transport: httpsTransport(kubeconfigConnection(kubeconfig), `/apis/batch/v1/namespaces/${namespace}/jobs`, {
      labelSelector: LABEL_RUN,
    }),
    on: (change, object) => {
      const job = object as V1Job;
      const uid = job.metadata!.uid!;
      if (change === 'DELETED' && !jobs.has(uid)) return;
      const labels = job.metadata?.labels ?? {};
      const now = Date.now();
      const seen = jobs.get(uid) ?? {
        uid,
        name: job.metadata!.name!,
        run: labels[LABEL_RUN]!,
        step: Number(labels[LABEL_STEP]),
        seen: now,
      };
      if (seen.completeSeen === undefined && change !== 'DELETED' && complete(job)) seen.completeSeen = now;
      jobs.set(uid, seen);
    },
  });
  return { synced: informer.synced, jobs, stop: () => informer.stop() };
}

const ready = (pod: V1Pod) =>
  !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** cascade_sync_moves_total of one pod, through the real node's door; undefined when it does not answer. */
async function podSyncMoves(pod: V1Pod): Promise<number | undefined> {
  const forward = await forwardThroughDoor(REAL_NODE.door, pod.status!.podIP!, 9095);
  try {
    const text = await scrape(`http://127.0.0.1:${forward.port}/metrics`);
    return samples(parseMetrics(text), 'cascade_sync_moves_total').reduce((s, x) => s + x.value, 0);
  } catch {
    return undefined;
  } finally {
    forward.close();
  }
}

/**
 * Scrapes every Ready function pod every `everyMs` and keeps each pod's last
 * count: a lower bound, since a pod killed between scrapes takes its last
 * moves with it. Resolves, once stopped, to the sum over every pod seen.
 */
export function watchSyncMoves(kubeconfig: string, namespace: string, everyMs = 3000) {
  const byPod = new Map<string, number>();
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const pods = await servicePods(kubeconfig, namespace, 'cascade').catch(() => []);
      for (const pod of pods.filter(ready)) {
        const moves = await podSyncMoves(pod).catch(() => undefined);
        if (moves !== undefined) byPod.set(pod.metadata!.uid!, moves);
      }
      await sleep(everyMs);
    }
  })();
  return {
    pods: () => byPod.size,
    stop: async () => {
      stopping = true;
      await loop;
      return [...byPod.values()].reduce((s, x) => s + x, 0);
    },
  };
}

/** What one janitor pass reported: its JSON line's counts. */
export interface JanitorPass {
  pod: string;
  advanced: number;
  finished: number;
  errors: number;
}

/** The janitor's summary line in its pod's log, if any. */
export function janitorPass(pod: string, log: string): JanitorPass | undefined {
  for (const line of log.split('\n').reverse()) {
    if (!line.startsWith('{"janitor":"sweep"')) continue;
    const s = JSON.parse(line) as { advanced?: number; finished?: number; errors?: number };
    return { pod, advanced: s.advanced ?? 0, finished: s.finished ?? 0, errors: s.errors ?? 0 };
  }
  return undefined;
}

/**
 * Calls `read` every `everyMs`, a failed read left to the next; stop() ends
 * the loop and reads once more, so nothing seen before it is missed.
 */
function readEvery(everyMs: number, read: () => Promise<void>): { stop(): Promise<void> } {
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      await read().catch(() => undefined);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      await read().catch(() => undefined);
    },
  };
}

/**
 * Reads the log of each janitor pod that ended, every `everyMs`. The
 * CronJob keeps one finished Job, so each pod stays about one period.
 */
export function watchJanitor(namespace: string, everyMs = 10_000) {
  const passes = new Map<string, JanitorPass | undefined>();
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const readEnded = async () => {
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app.kubernetes.io/name=cascade-janitor' });
    for (const pod of pods.items) {
      const name = pod.metadata!.name!;
      if (passes.has(name) || !['Succeeded', 'Failed'].includes(pod.status?.phase ?? '')) continue;
      const log = await core.readNamespacedPodLog({ namespace, name, container: 'janitor' });
      passes.set(name, janitorPass(name, log));
    }
  };
  const reads = readEvery(everyMs, readEnded);
  return {
    stop: async () => {
      await reads.stop();
      return [...passes.values()];
    },
  };
}

/** The request ids (spec.pid) of the runs of `namespace`, as a watch sees them made. */
export function watchRunPids(kubeconfig: string, namespace: string) {
  const pids = new Set<string>();
  const informer = inform({
    transport: httpsTransport(
      kubeconfigConnection(kubeconfig),
      `/apis/cascade.cascade.net/v1alpha1/namespaces/${namespace}/cascaderuns`,
      {},
    ),
    on: (change, object) => {
      const pid = (object as { spec?: { pid?: string } }).spec?.pid;
      if (pid && change !== 'DELETED') pids.add(pid);
    },
  });
  /** Whether the run of `pid` exists within `timeoutMs`. */
  const appears = async (pid: string, timeoutMs: number) => {
    for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(1000)) if (pids.has(pid)) return true;
    return pids.has(pid);
  };
  return { synced: informer.synced, appears, stop: () => informer.stop() };
}

/**
 * The events dead-lettered: the lines "dead letter" of the dead-letter
 * sink's pods, read every `everyMs`. A lower bound: a pod that scales to zero
 * between reads takes its last lines with it.
 */
export function watchDeadLetters(namespace: string, everyMs = 10_000) {
  const byPod = new Map<string, string[]>();
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  const read = async () => {
    const pods = await core.listNamespacedPod({
      namespace,
      labelSelector: 'serving.knative.dev/service=cascade-dead-letters',
    });
    for (const pod of pods.items) {
      const name = pod.metadata!.name!;
      const log = await core.readNamespacedPodLog({ namespace, name, container: 'user-container' }).catch(() => '');
      const lines = log.split('\n').filter((l) => l.includes('"msg":"dead letter"'));
      if (lines.length >= (byPod.get(name)?.length ?? 0)) byPod.set(name, lines);
    }
  };
  const reads = readEvery(everyMs, read);
  return {
    stop: async () => {
      await reads.stop();
      return [...byPod.values()].flat();
    },
  };
}
