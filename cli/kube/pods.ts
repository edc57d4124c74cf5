// The pods of a module's Job and their logs.
import { Writable } from 'node:stream';
import { CoreV1Api, Log, Watch, type KubeConfig, type V1Pod } from '@kubernetes/client-node';

const byCreation = (a: V1Pod, b: V1Pod) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? ''));
const selector = (jobName: string) => `job-name=${jobName}`;

/** The Job's pods, oldest first (a Job retried by its backoffLimit has several). */
export async function podsOfJob(kc: KubeConfig, namespace: string, jobName: string): Promise<V1Pod[]> {
  const list = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: selector(jobName) });
  return list.items.sort(byCreation);
}

/** The Job's first pod, waited for with a watch when it has none yet. */
export async function awaitPod(kc: KubeConfig, namespace: string, jobName: string): Promise<V1Pod> {
  const list = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: selector(jobName) });
  const first = list.items.sort(byCreation)[0];
  if (first) return first;
  return new Promise((resolve, reject) => {
    let pod: V1Pod | undefined;
    let controller: AbortController | undefined;
    const query = { labelSelector: selector(jobName), resourceVersion: list.metadata?.resourceVersion };
    void new Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`, query, (phase, obj: V1Pod) => {
      if (pod || phase !== 'ADDED') return;
      pod = obj;
      controller?.abort();
    }, () => (pod ? resolve(pod) : reject(new Error(`the watch for the pod of Job ${jobName} ended before one appeared`))))
      .then((c) => { controller = c; if (pod) c.abort(); }, reject);
  });
}

export const containerOf = (pod: V1Pod): string => pod.spec?.containers[0]?.name ?? '';

export async function podLog(kc: KubeConfig, namespace: string, pod: V1Pod): Promise<string> {
  return kc.makeApiClient(CoreV1Api).readNamespacedPodLog({ namespace, name: pod.metadata!.name!, container: containerOf(pod) });
}

/** Streams the pod's log to `onChunk` until the container ends. */
export function followPodLog(kc: KubeConfig, namespace: string, pod: V1Pod, onChunk: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const sink = new Writable({ write(chunk: Buffer, _enc, next) { onChunk(chunk.toString()); next(); } });
    new Log(kc).log(namespace, pod.metadata!.name!, containerOf(pod), sink, (err: unknown) => (err ? reject(err) : resolve()), { follow: true })
      .catch(reject);
  });
}
