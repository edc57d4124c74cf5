// Where a run that did not end stands, for a test's failure message: its
// step, the uid its status recorded, that step's Job and the Job's pod.
import { BatchV1Api, CoreV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { adminKubeConfig } from './kube.ts';

const conditions = (list: Array<{ type: string; status: string }> | undefined) =>
  (list ?? []).map((c) => `${c.type}=${c.status}`).join(',');

function jobState(job: V1Job | undefined): string {
  if (!job) return 'no Job';
  const deleting = job.metadata?.deletionTimestamp ? ' deleting' : '';
  const { active, ready } = job.status ?? {};
  return `Job ${job.metadata?.uid} active ${active ?? 0} ready ${ready ?? 0}${deleting} [${conditions(job.status?.conditions)}]`;
}

function podState(pod: V1Pod | undefined): string {
  if (!pod) return 'no pod';
  return `pod on ${pod.spec?.nodeName ?? 'no node'} ${pod.status?.phase} [${conditions(pod.status?.conditions)}]`;
}

/** One line per run: where each of `left` stands in namespace `ns`. */
export async function whereRunsStand(ns: string, left: readonly CascadeRun[]): Promise<string[]> {
  const kc = adminKubeConfig();
  const jobs = (await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: ns })).items;
  const pods = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: ns })).items;
  return left.map((r) => {
    const s = r.status ?? {};
    const rec = s.modules?.[s.currentStep ?? 0];
    const job = jobs.find((j) => j.metadata?.name === rec?.jobName);
    const pod = pods.find((p) => p.metadata?.labels?.['job-name'] === job?.metadata?.name);
    const steps = s.modules?.map((m) => m.phase).join(',');
    return `${r.metadata.name} ${s.phase} step ${s.currentStep} ${steps} uid ${rec?.jobUid ?? 'none'} ${jobState(job)} ${podState(pod)}`;
  });
}
