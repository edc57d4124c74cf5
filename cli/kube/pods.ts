// The pods of a module's Job and their logs.
import { Writable } from 'node:stream';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { clientNode } from './client.ts';

const byCreation = (a: V1Pod, b: V1Pod) =>
  String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? ''));
const selector = (jobName: string) => `job-name=${jobName}`;

/** The Job's pods, oldest first (a Job retried by its backoffLimit has several). */
export async function podsOfJob(kc: KubeConfig, namespace: string, jobName: string): Promise<V1Pod[]> {
  const { CoreV1Api } = await clientNode();
  const list = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: selector(jobName) });
  return list.items.sort(byCreation);
}

/** Its container has started, so it has a log: the API server answers 400 for a container still waiting. */
const started = (pod: V1Pod) => {
  const state = pod.status?.containerStatuses?.[0]?.state;
  return Boolean(state?.running ?? state?.terminated);
};

/**
 * The Job's first pod whose container has started, waited for with a watch
 * when it has none yet. The API server ends a watch after a while: it is
 * started again while `stillDue` says the pod is still to come, else the wait
 * ends with none.
 */
export async function awaitPod(
  kc: KubeConfig,
  namespace: string,
  jobName: string,
  stillDue: () => Promise<boolean>,
): Promise<V1Pod | undefined> {
  const { CoreV1Api } = await clientNode();
  for (;;) {
    const list = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: selector(jobName) });
    const first = list.items.sort(byCreation).find(started);
    if (first) return first;
    const seen = await watchForPod(kc, namespace, jobName, list.metadata?.resourceVersion);
    if (seen) return seen;
    if (!(await stillDue())) return undefined;
  }
}

/** The first started pod of the Job that a watch from `resourceVersion` sees, or undefined when the watch ends first. */
async function watchForPod(
  kc: KubeConfig,
  namespace: string,
  jobName: string,
  resourceVersion: string | undefined,
): Promise<V1Pod | undefined> {
  const { Watch } = await clientNode();
  return new Promise((resolve, reject) => {
    let pod: V1Pod | undefined;
    let controller: AbortController | undefined;
    const query = { labelSelector: selector(jobName), resourceVersion };
    void new Watch(kc)
      .watch(
        `/api/v1/namespaces/${namespace}/pods`,
        query,
        (phase, obj: V1Pod) => {
          if (pod || (phase !== 'ADDED' && phase !== 'MODIFIED') || !started(obj)) return;
          pod = obj;
          controller?.abort();
        },
        () => resolve(pod),
      )
      .then((c) => {
        controller = c;
        if (pod) c.abort();
      }, reject);
  });
}

export const containerOf = (pod: V1Pod): string => pod.spec?.containers[0]?.name ?? '';

/** Which lines of a log to read, as kubectl logs --since and --tail: unset reads them all. */
export interface LogWindow {
  sinceSeconds?: number | undefined;
  tailLines?: number | undefined;
}

export async function podLog(kc: KubeConfig, namespace: string, pod: V1Pod, window: LogWindow = {}): Promise<string> {
  const { CoreV1Api } = await clientNode();
  return kc
    .makeApiClient(CoreV1Api)
    .readNamespacedPodLog({ namespace, name: pod.metadata!.name!, container: containerOf(pod), ...window });
}

/**
 * Streams the pod's log to `onChunk` until the container ends. client-node
 * pipes the response into `sink` and never calls its `done` callback, so the
 * end is the sink's: finished when the log ended, unpiped unfinished when the
 * response broke off.
 */
export async function followPodLog(
  kc: KubeConfig,
  namespace: string,
  pod: V1Pod,
  { onChunk, window = {} }: { onChunk: (text: string) => void; window?: LogWindow },
): Promise<void> {
  const { Log } = await clientNode();
  return new Promise((resolve, reject) => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, next) {
        onChunk(chunk.toString());
        next();
      },
    });
    sink.on('finish', () => resolve());
    sink.on('unpipe', () =>
      setImmediate(() => {
        if (!sink.writableEnded) reject(new Error(`the log of pod ${pod.metadata?.name ?? ''} broke off`));
      }),
    );
    new Log(kc).log(namespace, pod.metadata!.name!, containerOf(pod), sink, { follow: true, ...window }).catch(reject);
  });
}
