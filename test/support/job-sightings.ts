// When the host first saw each of a namespace's run Jobs, and first saw it
// Complete, from a watch through the shared informer
// (shared/kube/informer.ts). The Knative bench and end-to-end tests time a
// step from these: a Job seen Complete → the run's next Job seen.
import type { V1Job } from '@kubernetes/client-node';
import { kubeconfigConnection } from '../../shared/kube/connect.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { LABEL_RUN, LABEL_STEP } from '../../shared/names.ts';

export interface JobSighting {
  /** The last copy seen. */
  job: V1Job;
  run: string;
  step: number;
  /** When the Job was first seen, and first seen Complete or SuccessCriteriaMet: Date.now() values. */
  seen: number;
  completeSeen?: number;
}

export interface JobSightings {
  /** Resolves once the first list is in. */
  synced: Promise<void>;
  /** Stops the watch; every Job seen, by name. */
  stop(): Map<string, JobSighting>;
}

/** Watches the Jobs of `namespace` that belong to a run, on the cluster of `kubeconfig`. */
export function watchJobSightings(kubeconfig: string, namespace: string): JobSightings {
  const seen = new Map<string, JobSighting>();
  const informer = inform({
    transport: httpsTransport(kubeconfigConnection(kubeconfig), `/apis/batch/v1/namespaces/${namespace}/jobs`, {
      labelSelector: LABEL_RUN,
    }),
    on: (change, object) => {
      if (change === 'DELETED') return;
      const job = object as V1Job;
      const now = Date.now();
      const labels = job.metadata?.labels ?? {};
      const name = job.metadata!.name!;
      const record = seen.get(name) ?? { job, run: labels[LABEL_RUN]!, step: Number(labels[LABEL_STEP]), seen: now };
      record.job = job;
      // the Job controller writes SuccessCriteriaMet first, and the function may move on it (bench/README.md)
      const complete = job.status?.conditions?.some(
        (c) => (c.type === 'Complete' || c.type === 'SuccessCriteriaMet') && c.status === 'True',
      );
      if (record.completeSeen === undefined && complete) record.completeSeen = now;
      seen.set(name, record);
    },
  });
  return {
    synced: informer.synced,
    stop: () => {
      informer.stop();
      return seen;
    },
  };
}
