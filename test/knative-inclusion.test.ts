// Eventing's SinkBinding webhook in its inclusion mode, on real Knative: it
// admits only objects labelled bindings.knative.dev/include, in a namespace so
// labelled. The release labels each object the webhook must act on: the
// function's Service, so that it and its module Jobs get K_SINK; the janitor's
// Jobs; and a module Job the function leaves to the SinkBinding (ADR 0008).
import { AdmissionregistrationV1Api, BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { apiClient } from '../local/kube.ts';
import { buildJob } from '../shared/core/job-manifest.ts';
import { BINDING_EXCLUDE_LABEL, BINDING_INCLUDE_LABEL } from '../shared/core/module-sink.ts';
import { ended, recordJobs, requestRun, useKnativeCascade, waitRun } from './support/knative-cascade.ts';
import { readKnative } from './support/knative-eventing.ts';
import { SCALE_MODULES } from './support/knative-scale.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

const WEBHOOK = 'sinkbindings.webhook.sources.knative.dev';

/** Sets the webhook's selection mode and waits until its configuration selects objects by that mode's label. */
async function selectionMode(mode: 'inclusion' | 'exclusion'): Promise<void> {
  const kubectl = (...args: string[]) =>
    runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, '-n', 'knative-eventing', ...args]);
  await kubectl('set', 'env', 'deployment/eventing-webhook', `SINK_BINDING_SELECTION_MODE=${mode}`);
  await kubectl('rollout', 'status', 'deployment/eventing-webhook', '--timeout=180s');
  const label = mode === 'inclusion' ? BINDING_INCLUDE_LABEL : BINDING_EXCLUDE_LABEL;
  const admission = apiClient(adminKubeConfig(), AdmissionregistrationV1Api);
  await waitFor(
    async () => {
      const config = await admission.readMutatingWebhookConfiguration({ name: WEBHOOK });
      const keys = config.webhooks?.[0]?.objectSelector?.matchExpressions?.map((e) => e.key);
      return keys?.length === 1 && keys[0] === label;
    },
    { timeoutMs: 120_000, intervalMs: 500, message: `the SinkBinding webhook in ${mode} mode` },
  );
}

const namespace = useKnativeCascade({
  scenario: { cascademodules: SCALE_MODULES },
  beforeApply: () => selectionMode('inclusion'),
});
// before the namespace and Knative go (hooks run in reverse)
afterAll(() => selectionMode('exclusion'), 300_000);

const sinkOf = (job: V1Job | undefined) =>
  job?.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'K_SINK')?.value;

/** Creates `job` suspended, so no pod runs, and returns it as the API server admitted it. */
async function admitted(job: V1Job): Promise<V1Job> {
  const body = { ...job, spec: { ...job.spec!, suspend: true } };
  return apiClient(adminKubeConfig(), BatchV1Api).createNamespacedJob({ namespace: namespace(), body });
}

async function brokerUrl(): Promise<string | undefined> {
  const broker = await readKnative(namespace(), 'eventing.knative.dev', 'v1', 'brokers', 'default');
  return broker.status?.address?.url;
}

type Env = { name: string; value?: string }[];

/**
 * K_SINK of the revision the Service `cascade` serves, once it serves its
 * latest and no pod of another revision is left. The SinkBinding may patch the
 * Service after it was Ready: its first revision, made before, has no K_SINK,
 * and its pods leave their module Jobs to the SinkBinding.
 */
async function servedSink(): Promise<string | undefined> {
  const read = (plural: string, name: string) => readKnative(namespace(), 'serving.knative.dev', 'v1', plural, name);
  const revision = await waitFor(
    async () => {
      const service = await read('services', 'cascade');
      const status = service.status as { latestReadyRevisionName?: string; latestCreatedRevisionName?: string };
      const env = (service.spec?.template as { spec: { containers: { env?: Env }[] } }).spec.containers[0]?.env;
      const ready = status.latestReadyRevisionName;
      const serving = env?.some((e) => e.name === 'K_SINK') && ready && ready === status.latestCreatedRevisionName;
      return serving ? read('revisions', ready) : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 1000, message: 'the Service cascade serves a revision with K_SINK' },
  );
  // a pod of an older revision, until it is gone, may still get the run's
  // events and make its Jobs from its watches, without K_SINK
  const revisionName = revision.metadata?.name;
  const core = apiClient(adminKubeConfig(), CoreV1Api);
  await waitFor(
    async () => {
      const pods = await core.listNamespacedPod({
        namespace: namespace(),
        labelSelector: 'serving.knative.dev/service=cascade',
      });
      return pods.items.every((p) => p.metadata?.labels?.['serving.knative.dev/revision'] === revisionName);
    },
    { timeoutMs: 300_000, intervalMs: 1000, message: `every pod of the Service cascade is of ${revisionName}` },
  );
  const env = (revision.spec as { containers: { env?: Env }[] }).containers[0]?.env;
  return env?.find((e) => e.name === 'K_SINK')?.value;
}

describe("the SinkBinding webhook in Eventing's inclusion mode", () => {
  it('gives the function K_SINK, and the function gives it to its module Jobs: a run through the Broker Succeeds', async () => {
    const url = await brokerUrl();
    expect(url).toBeTruthy();
    expect(await servedSink()).toBe(url);
    const recorder = recordJobs(namespace());
    await recorder.synced;
    const run = await waitRun(namespace(), await requestRun(namespace()), ended, 'ended');
    const jobs = recorder.stop();
    expect(run.status?.phase).toBe('Succeeded');
    const made = run.status!.modules!.map((m) => jobs.get(m.jobName!)?.job);
    expect(made.map(sinkOf)).toEqual([url, url, url]);
    expect(made.map((j) => j?.metadata?.labels?.[BINDING_EXCLUDE_LABEL])).toEqual(['true', 'true', 'true']);
    // servedSink waits for the older revision to scale to zero, past its stable window
  }, 600_000);

  it('gives K_SINK to a module Job left to the SinkBinding and to a janitor Job, each by its label, and to no other', async () => {
    const url = await brokerUrl();
    const settings = { namespace: namespace(), scenarioName: 'inclusion', outMinioAddress: 'http://out/' };
    const ref = { name: 'inclusion-run', uid: 'u-1', iuid: 'abcde-1', turlinfo: 's3://in', modules: SCALE_MODULES };
    const left = buildJob(settings, ref, 0);
    left.metadata!.ownerReferences = [];
    expect(sinkOf(await admitted(left))).toBe(url);
    const unlabelled = structuredClone(left);
    unlabelled.metadata!.name = 'inclusion-unlabelled';
    delete unlabelled.metadata!.labels![BINDING_INCLUDE_LABEL];
    expect(sinkOf(await admitted(unlabelled)), 'inclusion mode is on').toBeUndefined();
    const cron = await apiClient(adminKubeConfig(), BatchV1Api).readNamespacedCronJob({
      namespace: namespace(),
      name: 'cascade-janitor',
    });
    const template = cron.spec.jobTemplate;
    const janitor = await admitted({
      metadata: { ...template.metadata, name: 'inclusion-janitor' },
      spec: template.spec,
    });
    expect(sinkOf(janitor)).toBe(url);
  });
});
