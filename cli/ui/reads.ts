// What the run page reads on demand, beside the watched run: its Events, its
// Jobs and a step's pod logs. Each read is the API server's answer now; a
// refusal is named in kubectl's words rather than failing the whole page.
import type { CoreV1Event, V1Job, V1Pod } from '@kubernetes/client-node';
import { describeError, type Kube } from '../kube/connect.ts';
import { podLog, podsOfJob } from '../kube/pods.ts';
import type { RunObject } from '../runs/run-object.ts';
import { LABEL_ATTEMPT, LABEL_RUN, LABEL_STEP } from '../../shared/names.ts';
import type { EventView, JobView, StepLogs } from './protocol.ts';

const iso = (t: Date | string | undefined) => (t ? new Date(t).toISOString() : '');

function eventView(e: CoreV1Event): EventView {
  return {
    type: e.type ?? '',
    reason: e.reason ?? '',
    message: e.message ?? '',
    count: e.count ?? 1,
    time: iso(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp),
    object: `${e.involvedObject.kind ?? ''}/${e.involvedObject.name ?? ''}`,
  };
}

export async function runEvents(kube: Kube, namespace: string, name: string): Promise<EventView[]> {
  const list = await kube.rest<{ items: CoreV1Event[] }>('GET', `/api/v1/namespaces/${namespace}/events`, {
    query: { fieldSelector: `involvedObject.name=${name}` },
  });
  return list.items.map(eventView).sort((a, b) => a.time.localeCompare(b.time));
}

function jobStatus(job: V1Job): Pick<JobView, 'active' | 'succeeded' | 'failed' | 'start' | 'completion'> {
  const s = job.status ?? {};
  return {
    active: s.active ?? 0,
    succeeded: s.succeeded ?? 0,
    failed: s.failed ?? 0,
    ...(s.startTime ? { start: iso(s.startTime) } : {}),
    ...(s.completionTime ? { completion: iso(s.completionTime) } : {}),
  };
}

function jobView(job: V1Job, podStarts: ReadonlyMap<string, string>): JobView {
  const labels = job.metadata?.labels ?? {};
  const name = job.metadata?.name ?? '';
  const podStarted = podStarts.get(name);
  return {
    name,
    step: labels[LABEL_STEP] ?? '',
    attempt: labels[LABEL_ATTEMPT] ?? '1',
    ...jobStatus(job),
    ...(podStarted ? { podStarted } : {}),
  };
}

/** The earliest start of a container of `pod`, running or ended; undefined while none has started. */
function containerStart(pod: V1Pod): string | undefined {
  const starts = (pod.status?.containerStatuses ?? [])
    .map((c) => c.state?.running?.startedAt ?? c.state?.terminated?.startedAt)
    .filter((at): at is Date => at !== undefined)
    .map((at) => iso(at));
  return starts.sort()[0];
}

/** The first container start of each Job's pods, by Job name, from the run's pods the API server still has. */
async function podStarts(kube: Kube, namespace: string, name: string): Promise<Map<string, string>> {
  const pods = await kube.rest<{ items: V1Pod[] }>('GET', `/api/v1/namespaces/${namespace}/pods`, {
    query: { labelSelector: `${LABEL_RUN}=${name}` },
  });
  const starts = new Map<string, string>();
  for (const pod of pods.items) {
    const job = pod.metadata?.labels?.[JOB_NAME_LABEL];
    const started = containerStart(pod);
    if (!job || !started) continue;
    const known = starts.get(job);
    if (!known || started < known) starts.set(job, started);
  }
  return starts;
}

/** The label the Job controller puts on each pod of a Job. */
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

export async function runJobs(kube: Kube, namespace: string, name: string): Promise<JobView[]> {
  const [list, starts] = await Promise.all([
    kube.rest<{ items: V1Job[] }>('GET', `/apis/batch/v1/namespaces/${namespace}/jobs`, {
      query: { labelSelector: `${LABEL_RUN}=${name}` },
    }),
    // A user who may not list pods still sees the Jobs: the bars are not split.
    podStarts(kube, namespace, name).catch(() => new Map<string, string>()),
  ]);
  return list.items.map((job) => jobView(job, starts)).sort((a, b) => a.name.localeCompare(b.name));
}

/** The Job of step `step` (from 0) and attempt `attempt` (the current one when undefined). */
export function jobOfStep(run: RunObject, step: number, attempt?: number): string | undefined {
  const record = run.status?.modules?.find((m) => m.step === step);
  if (!record) return undefined;
  if (attempt === undefined || attempt === (record.attempt ?? 1)) return record.jobName;
  const earlier = (record.attempts ?? []) as { attempt?: number; jobName?: string }[];
  return earlier.find((a) => a.attempt === attempt)?.jobName;
}

export async function stepLogs(kube: Kube, namespace: string, jobName: string): Promise<StepLogs> {
  const pods = await podsOfJob(kube, namespace, jobName);
  if (pods.length === 0)
    return {
      jobName,
      pods: [],
      gone: `no pod of Job ${jobName}: the API server has none (a run's Jobs are deleted when it ends)`,
    };
  const read = pods.map(async (pod) => {
    const podName = pod.metadata?.name ?? '';
    try {
      return { name: podName, log: await podLog(kube, namespace, pod) };
    } catch (error) {
      return { name: podName, error: describeError(error) };
    }
  });
  return { jobName, pods: await Promise.all(read) };
}
