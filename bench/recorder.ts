// The benchmarks' eyes: a watch on Cascade's Jobs and on the CascadeRuns of a
// namespace, stamping each change with the time it arrived here
// (creationTimestamp has only second resolution). Waiters resolve when a Job
// appears or a run reaches its Succeeded condition.
import type { KubeConfig, V1Job } from '@kubernetes/client-node';
import { connectionOf } from '../local/kube.ts';
import { inform } from '../shared/kube/informer.ts';
import { httpsTransport } from '../shared/kube/watch-stream.ts';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import { LABEL_RUN, LABEL_STEP } from '../shared/names.ts';
import { API_VERSION, CASCADE_RUN_PLURAL } from '../shared/api/group.ts';

export interface JobTimes {
  run: string;
  step: number;
  added: number;
  /** When the Job was first seen with a ready pod (its module running: the earliest it can send a result). */
  ready?: number;
  /** When the Job was first seen with a terminal success condition. */
  completed?: number;
}

export interface RunTimes {
  /** First seen with Succeeded=True or False. */
  ended?: number;
  phase?: string;
}

export interface Recorder {
  jobs: Map<string, JobTimes>;
  runs: Map<string, RunTimes>;
  /** Job names of a run by step. */
  jobsOf(run: string): JobTimes[];
  waitJob(run: string, step: number, timeoutMs?: number): Promise<JobTimes>;
  /** Until the run's Job of `step` has a ready pod. */
  waitReady(run: string, step: number, timeoutMs?: number): Promise<JobTimes>;
  waitEnded(run: string, timeoutMs?: number): Promise<RunTimes>;
  stop(): void;
}

const done = (job: V1Job) =>
  job.status?.conditions?.some(
    (c) => (c.type === 'Complete' || c.type === 'SuccessCriteriaMet') && c.status === 'True',
  );

type Waiter = { test: () => boolean; resolve: () => void };

export async function startRecorder(kc: KubeConfig, namespace: string): Promise<Recorder> {
  const jobs = new Map<string, JobTimes>();
  const runs = new Map<string, RunTimes>();
  const byRun = new Map<string, JobTimes[]>();
  let waiters: Waiter[] = [];
  const wake = () => {
    waiters = waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  };
  const firstSeen = (job: V1Job, now: number): JobTimes => {
    const labels = job.metadata?.labels ?? {};
    const run = labels[LABEL_RUN] ?? '';
    const t = { run, step: Number(labels[LABEL_STEP]), added: now };
    jobs.set(job.metadata?.name ?? '', t);
    byRun.set(run, [...(byRun.get(run) ?? []), t]);
    return t;
  };
  const onJob = (phase: string, job: V1Job) => {
    const now = performance.now();
    if (phase === 'DELETED') return;
    const t = jobs.get(job.metadata?.name ?? '') ?? firstSeen(job, now);
    if (t.ready === undefined && (job.status?.ready ?? 0) > 0) t.ready = now;
    if (t.completed === undefined && done(job)) t.completed = now;
    wake();
  };
  const onRun = (phase: string, run: CascadeRun) => {
    const now = performance.now();
    if (phase === 'DELETED') return;
    const status = run.status ?? {};
    const c = (status.conditions ?? []).find((x) => x.type === 'Succeeded');
    const t = runs.get(run.metadata.name) ?? {};
    runs.set(run.metadata.name, t);
    if (t.ended === undefined && c && c.status !== 'Unknown') Object.assign(t, { ended: now, phase: status.phase });
    wake();
  };
  const conn = connectionOf(kc);
  const w1 = inform({
    transport: httpsTransport(conn, `/apis/batch/v1/namespaces/${namespace}/jobs`, { labelSelector: LABEL_RUN }),
    on: (phase, obj) => onJob(phase, obj as V1Job),
  });
  const w2 = inform({
    transport: httpsTransport(conn, `/apis/${API_VERSION}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`),
    on: (phase, obj) => onRun(phase, obj as CascadeRun),
  });
  await Promise.all([w1.synced, w2.synced]);
  const wait = <T>(test: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const now = test();
      if (now !== undefined) return resolve(now);
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      waiters.push({
        test: () => test() !== undefined,
        resolve: () => {
          clearTimeout(timer);
          resolve(test()!);
        },
      });
    });
  const jobsOf = (run: string) => [...(byRun.get(run) ?? [])].sort((a, b) => a.step - b.step);
  return {
    jobs,
    runs,
    jobsOf,
    waitJob: (run, step, timeoutMs = 60_000) =>
      wait(() => jobsOf(run).find((j) => j.step === step), `Job ${step} of ${run}`, timeoutMs),
    waitReady: (run, step, timeoutMs = 60_000) =>
      wait(
        () => jobsOf(run).find((j) => j.step === step && j.ready !== undefined),
        `Job ${step} of ${run} ready`,
        timeoutMs,
      ),
    waitEnded: (run, timeoutMs = 120_000) =>
      wait(() => (runs.get(run)?.ended !== undefined ? runs.get(run) : undefined), `run ${run} to end`, timeoutMs),
    stop: () => {
      w1.stop();
      w2.stop();
    },
  };
}
