// The pods of a module's Job and their logs.
import type { V1Pod } from '@kubernetes/client-node';
import { followPodLog as follow, podLog as read, type LogWindow } from '../../shared/kube/pod-log.ts';
import type { Kube } from './connect.ts';
import { firstInformed } from './informed.ts';

export type { LogWindow } from '../../shared/kube/pod-log.ts';

const byCreation = (a: V1Pod, b: V1Pod) =>
  String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? ''));
const selector = (jobName: string) => `job-name=${jobName}`;
const podsPath = (namespace: string) => `/api/v1/namespaces/${namespace}/pods`;

/** The Job's pods, oldest first (a Job retried by its backoffLimit has several). */
export async function podsOfJob(kube: Kube, namespace: string, jobName: string): Promise<V1Pod[]> {
  const list = await kube.rest<{ items: V1Pod[] }>('GET', podsPath(namespace), {
    query: { labelSelector: selector(jobName) },
  });
  return list.items.sort(byCreation);
}

/** Its container has started, so it has a log: the API server answers 400 for a container still waiting. */
const started = (pod: V1Pod) => {
  const state = pod.status?.containerStatuses?.[0]?.state;
  return Boolean(state?.running ?? state?.terminated);
};

/** The Job's first pod whose container has started, waited for with the informer; undefined when `signal` aborts first. */
export function awaitPod(kube: Kube, jobName: string, signal: AbortSignal): Promise<V1Pod | undefined> {
  const at = { path: podsPath(kube.namespace), query: { labelSelector: selector(jobName) } };
  return firstInformed<V1Pod>(kube, at, started, signal);
}

export const containerOf = (pod: V1Pod): string => pod.spec?.containers[0]?.name ?? '';

const logAt = (namespace: string, pod: V1Pod, window: LogWindow = {}) => ({
  namespace,
  pod: pod.metadata!.name!,
  container: containerOf(pod),
  window,
});

export function podLog(kube: Kube, namespace: string, pod: V1Pod, window: LogWindow = {}): Promise<string> {
  return read(kube.rest, logAt(namespace, pod, window));
}

/** Streams the pod's log to `onChunk` until the container ends; rejects when it breaks off. */
export async function followPodLog(
  kube: Kube,
  pod: V1Pod,
  { onChunk, window = {} }: { onChunk: (text: string) => void; window?: LogWindow },
): Promise<void> {
  const hold = setInterval(() => {}, 1 << 30);
  try {
    await follow(kube.conn, logAt(kube.namespace, pod, window), onChunk);
  } finally {
    clearInterval(hold);
  }
}
