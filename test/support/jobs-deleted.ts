// A run's Jobs are deleted as it ends or just after, and each delete reaches
// the Broker later still, through the ApiServerSource: a test that stops the
// function, or counts deliveries, waits for them first.
import { BatchV1Api } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { LABEL_RUN } from '../../shared/names.ts';
import type { Harness } from './cascade-harness.ts';
import { adminKubeConfig, waitFor } from './kube.ts';

/**
 * Waits until the Jobs of `run` are gone from the API server and the Broker
 * has sent on one delete event for each, whatever came of its delivery.
 */
export async function jobsDeletedAndDelivered(h: Pick<Harness, 'ns' | 'broker'>, run: CascadeRun): Promise<void> {
  const name = run.metadata.name;
  const jobs = (run.status?.modules ?? []).flatMap((m) => [m.jobName, ...(m.attempts ?? []).map((a) => a.jobName)]);
  expect(jobs.length, `the Jobs of ${name}, from its status`).toBeGreaterThan(0);
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  await waitFor(
    async () =>
      (await batch.listNamespacedJob({ namespace: h.ns, labelSelector: `${LABEL_RUN}=${name}` })).items.length === 0,
    { timeoutMs: 60_000, message: `the Jobs of ${name} deleted` },
  );
  await waitFor(
    () =>
      new Set(h.broker.attempts.filter((a) => a.route === 'cascade-job-delete').map((a) => a.id)).size >=
      new Set(jobs).size,
    { timeoutMs: 60_000, message: `the delete of each of ${jobs.join(', ')} sent on by the Broker` },
  );
}
