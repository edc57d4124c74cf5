// Many runs at once on real Knative, for bench/knative-scale.ts and
// test/knative-scale.test.ts. The modules' pods run on kwok's nodes: each
// names its node, since the namespace's PodNodeSelector annotation, which puts
// Cascade's own pods on the real node, would add that node's selector to any
// pod the scheduler places. The Service `cascade` gets a low concurrency
// target, so Knative's autoscaler runs it on several pods, and an open token
// bucket, so no run request is refused 429. A recorder watches the Jobs,
// their pods, the runs and the function's pods.
import { randomInt } from 'node:crypto';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { ServiceChange } from '../../local/knative/cascade-deploy.ts';
import { namespacePlacedModule } from '../../local/node/real-modules.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import type { CascadeModule } from '../../shared/api/scenario.ts';
import { kubeconfigConnection } from '../../shared/kube/connect.ts';
import { inform, type WatchChange } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import { watchJobSightings, type JobSighting } from './job-sightings.ts';

/** The Service's change: one pod per 2 requests in flight, up to 5 pods (the real node holds 30), a 10 s window. */
export const SCALE_SERVICE: ServiceChange = {
  annotations: {
    'autoscaling.knative.dev/target': '2',
    'autoscaling.knative.dev/target-utilization-percentage': '100',
    'autoscaling.knative.dev/max-scale': '5',
    'autoscaling.knative.dev/window': '10s',
  },
  // the bench measures the engine, not the limiter (bench/README.md)
  env: { CASCADE_RATE_LIMIT: '1000000', CASCADE_RATE_BURST: '1000000' },
};

/** A module whose pod kwok runs on `node` and ends at once, with the restricted container of the real node's modules. */
export function kwokModule(name: string, node: string): CascadeModule {
  const m = namespacePlacedModule(name, {});
  return { ...m, template: { ...m.template, spec: { ...m.template.spec!, nodeName: node } } };
}

/** The 3-module scenario, on kwok's two nodes in turn. */
export const SCALE_MODULES = [
  kwokModule('first', 'kwok-node-0'),
  kwokModule('second', 'kwok-node-1'),
  kwokModule('third', 'kwok-node-0'),
];

let next = randomInt(0x10000, 0x80000);

/** `n` iuids whose first five characters differ, so no run takes the hashed fallback name. */
export function uniqueIuids(n: number): string[] {
  return Array.from({ length: n }, () => `${(next++ % 0x100000).toString(16).padStart(5, '0')}-scale-${process.pid}`);
}

/** What the recorder saw. */
export interface ScaleRecord {
  /** Job name → uids, and Job name → its pods' uids; the Jobs seen deleted. */
  jobs: Map<string, Set<string>>;
  deleted: Set<string>;
  pods: Map<string, Set<string>>;
  /** Job name → the node of its pod. */
  nodes: Map<string, string>;
  sightings: Map<string, JobSighting>;
  /** Run name → when it was first seen ended, Date.now(). */
  ended: Map<string, number>;
  /** Run name → its last copy. */
  runs: Map<string, CascadeRun>;
  /** The most function pods Ready at once, and every function pod seen, by uid. */
  mostReady: number;
  functionPods: Map<string, V1Pod>;
}

const ENDED = ['Succeeded', 'Failed', 'Cancelled'];
const isReady = (pod: V1Pod) =>
  !pod.metadata?.deletionTimestamp &&
  Boolean(pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));

function emptyRecord(): ScaleRecord {
  return {
    jobs: new Map(),
    deleted: new Set(),
    pods: new Map(),
    nodes: new Map(),
    sightings: new Map(),
    ended: new Map(),
    runs: new Map(),
    mostReady: 0,
    functionPods: new Map(),
  };
}

const add = (map: Map<string, Set<string>>, key: string, uid: string) =>
  map.set(key, (map.get(key) ?? new Set()).add(uid));

/** Handlers of each watch, filling `record`. */
function handlers(record: ScaleRecord) {
  const ready = new Set<string>();
  return {
    job: (change: WatchChange, o: unknown) => {
      const { name, uid } = (o as V1Job).metadata!;
      add(record.jobs, name!, uid!);
      if (change === 'DELETED') record.deleted.add(name!);
    },
    pod: (_c: WatchChange, o: unknown) => {
      const pod = o as V1Pod;
      const job = pod.metadata!.labels!['job-name']!;
      add(record.pods, job, pod.metadata!.uid!);
      if (pod.spec?.nodeName) record.nodes.set(job, pod.spec.nodeName);
    },
    run: (change: WatchChange, o: unknown) => {
      const run = o as CascadeRun;
      if (change === 'DELETED') return;
      record.runs.set(run.metadata.name, run);
      if (ENDED.includes(run.status?.phase ?? '') && !record.ended.has(run.metadata.name))
        record.ended.set(run.metadata.name, Date.now());
    },
    functionPod: (change: WatchChange, o: unknown) => {
      const pod = o as V1Pod;
      const uid = pod.metadata!.uid!;
      record.functionPods.set(uid, pod);
      if (change !== 'DELETED' && isReady(pod)) ready.add(uid);
      else ready.delete(uid);
      record.mostReady = Math.max(record.mostReady, ready.size);
    },
  };
}

/**
 * Watches `namespace` of the cluster of `kubeconfig`: the run Jobs and their
 * pods by uid, each Job's sightings (a step's timing), the runs' ends, and the
 * pods of the Knative Service `service`, the most Ready at once among them.
 */
export function recordScale(
  kubeconfig: string,
  namespace: string,
  service = 'cascade',
): { synced: Promise<void>; record: ScaleRecord; stop: () => ScaleRecord } {
  const record = emptyRecord();
  const on = handlers(record);
  const connection = kubeconfigConnection(kubeconfig);
  const watch = (path: string, labelSelector: string | undefined, fn: (c: WatchChange, o: unknown) => void) =>
    inform({
      transport: httpsTransport(connection, path, labelSelector ? { labelSelector } : {}),
      on: fn,
    });
  const informers = [
    watch(`/apis/batch/v1/namespaces/${namespace}/jobs`, LABEL_RUN, on.job),
    watch(`/api/v1/namespaces/${namespace}/pods`, 'job-name', on.pod),
    watch(`/apis/cascade.cascade.net/v1alpha1/namespaces/${namespace}/cascaderuns`, undefined, on.run),
    watch(`/api/v1/namespaces/${namespace}/pods`, `serving.knative.dev/service=${service}`, on.functionPod),
  ];
  const sightings = watchJobSightings(kubeconfig, namespace);
  return {
    synced: Promise.all([...informers.map((i) => i.synced), sightings.synced]).then(() => undefined),
    record,
    stop: () => {
      for (const i of informers) i.stop();
      record.sightings = sightings.stop();
      return record;
    },
  };
}

/** The runs of `iuids` among those recorded, by iuid. */
export function runsOf(record: ScaleRecord, iuids: readonly string[]): Map<string, CascadeRun> {
  const wanted = new Set(iuids);
  const out = new Map<string, CascadeRun>();
  for (const run of record.runs.values()) if (wanted.has(run.spec.pid)) out.set(run.spec.pid, run);
  return out;
}

/**
 * What breaks "every run ended Succeeded, each step once" for the runs of
 * `iuids`: a run missing or not Succeeded, a step without its Job, a Job made
 * more than once, or a Job whose pod was made more than once or ran off
 * kwok's nodes. Empty when none.
 */
export function stepProblems(record: ScaleRecord, iuids: readonly string[], steps: number): string[] {
  const runs = runsOf(record, iuids);
  return iuids.flatMap((iuid) => {
    const run = runs.get(iuid);
    if (run?.status?.phase !== 'Succeeded') return [`run of ${iuid}: ${run?.status?.phase ?? 'no phase'}`];
    const names = (run.status.modules ?? []).map((m) => m.jobName ?? '');
    const problems = names.length === steps ? [] : [`${run.metadata.name}: ${names.length} steps`];
    return [...problems, ...names.flatMap((name) => jobProblems(record, name))];
  });
}

/** What is wrong with the Job `name` of a run: made other than once, its pod too, or its pod off kwok's nodes. */
function jobProblems(record: ScaleRecord, name: string): string[] {
  const jobs = record.jobs.get(name)?.size ?? 0;
  const pods = record.pods.get(name)?.size ?? 0;
  const node = record.nodes.get(name) ?? 'no node';
  if (jobs === 1 && pods === 1 && node.startsWith('kwok-node-')) return [];
  return [`Job ${name} made ${jobs}, its pod ${pods}, on ${node}`];
}

/** Each hand-off of the recorded Jobs: the run's next Job first seen after the step's Job was first seen Complete, in ms. */
export function handOffs(sightings: Iterable<JobSighting>): number[] {
  const byKey = new Map<string, JobSighting>();
  for (const job of sightings) byKey.set(`${job.run}/${job.step}`, job);
  const out: number[] = [];
  for (const job of byKey.values()) {
    const next = byKey.get(`${job.run}/${job.step + 1}`);
    if (next && job.completeSeen !== undefined) out.push(Math.max(0, next.seen - job.completeSeen));
  }
  return out;
}
