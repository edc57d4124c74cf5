// The function's and the janitor's pods pass Pod Security Admission
// "restricted", on the real kube-apiserver (the PodSecurity admission plugin
// is built in and on by default; local/cluster disables none but
// TaintNodesByCondition). In a namespace that enforces "restricted":
// - the janitor CronJob of knative/janitor-cronjob.yaml (read from the file)
//   is accepted, and a Job triggered from it gets its pod from the Job
//   controller (a refused pod would be a FailedCreate event instead);
// - a Pod with the pod spec of knative/service.yaml (what Knative Serving
//   makes of it for the user container; the queue-proxy it adds is
//   Knative's own business) is accepted, and so is one of
//   knative/dead-letter-sink.yaml;
// - the same pods without their securityContext are refused, so this test
//   can fail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api, CoreV1Api, type V1CronJob, type V1Pod } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { adminKubeConfig, adminKubeconfigPath, apiStatus, createTestNamespace, waitFor } from './support/kube.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
const manifest = (file: string) => load(readFileSync(join(repoRoot, 'knative', file), 'utf8')) as any;
const REFUSED = /violates PodSecurity "restricted:latest"/;

let ns = '';
const core = () => adminKubeConfig().makeApiClient(CoreV1Api);
const batch = () => adminKubeConfig().makeApiClient(BatchV1Api);
const kubectl = (...args: string[]) =>
  runCommand(kubectlPath(), [`--kubeconfig=${adminKubeconfigPath()}`, '-n', ns, ...args]);

beforeAll(async () => {
  ns = await createTestNamespace('cascade-restricted');
  await runCommand(kubectlPath(), [
    `--kubeconfig=${adminKubeconfigPath()}`,
    'label',
    'namespace',
    ns,
    'pod-security.kubernetes.io/enforce=restricted',
    'pod-security.kubernetes.io/enforce-version=latest',
  ]);
  // pods name their ServiceAccount, which must exist (ServiceAccount admission)
  for (const name of ['cascade-function', 'cascade-janitor'])
    await core().createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
}, 60_000);

/** The janitor CronJob as knative/janitor-cronjob.yaml has it, under `name`, less its securityContext when `bare`. */
function janitorCronJob(name: string, bare = false): V1CronJob {
  const cronJob = manifest('janitor-cronjob.yaml') as V1CronJob;
  cronJob.metadata = { ...cronJob.metadata, name };
  if (bare) for (const c of cronJob.spec!.jobTemplate.spec!.template.spec!.containers) delete c.securityContext;
  return cronJob;
}

/** Triggers a Job from the CronJob (`kubectl create job --from`) and waits until the Job controller made its pod, or was refused. */
async function triggerJob(cronJob: string): Promise<string> {
  const job = `${cronJob}-manual`;
  await kubectl('create', 'job', job, `--from=cronjob/${cronJob}`);
  return waitFor(
    async () => {
      const pods = await core().listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` });
      if (pods.items.length > 0) return `pod created: ${pods.items[0]!.metadata!.name}`;
      const events = await core().listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=${job},reason=FailedCreate`,
      });
      return events.items.length > 0 ? `refused: ${events.items[0]!.message}` : undefined;
    },
    { timeoutMs: 60_000, message: `the Job controller acted on Job ${job}` },
  );
}

/**
 * A Pod as Knative Serving makes it from the revision template of
 * knative/service.yaml, for the user container: the template's pod spec
 * less the revision-only fields, probes on the container's port.
 */
function servicePod(
  name: string,
  strip: (c: NonNullable<V1Pod['spec']>['containers'][number]) => void = () => {},
  file = 'service.yaml',
): V1Pod {
  const template = manifest(file).spec.template;
  const spec = structuredClone(template.spec);
  for (const revisionOnly of [
    'containerConcurrency',
    'timeoutSeconds',
    'responseStartTimeoutSeconds',
    'idleTimeoutSeconds',
  ])
    delete spec[revisionOnly];
  const pod: V1Pod = {
    metadata: { name, labels: template.metadata.labels, annotations: template.metadata.annotations },
    spec,
  };
  for (const c of pod.spec!.containers) {
    c.name ??= 'user-container'; // Knative's name for an unnamed container
    const port = c.ports?.[0]?.containerPort ?? 8080;
    for (const probe of [c.livenessProbe, c.readinessProbe]) if (probe?.httpGet) probe.httpGet.port = port;
    strip(c);
  }
  return pod;
}

async function createPod(pod: V1Pod): Promise<string> {
  try {
    await core().createNamespacedPod({ namespace: ns, body: pod });
    return 'accepted';
  } catch (error) {
    if (apiStatus(error) !== 403) throw error;
    const body = (error as { body?: unknown }).body;
    return `refused: ${typeof body === 'string' ? (JSON.parse(body) as { message: string }).message : String(error)}`;
  }
}

describe('a namespace enforcing Pod Security "restricted"', () => {
  it('accepts the janitor CronJob, and the Job controller creates its pods', async () => {
    await batch().createNamespacedCronJob({ namespace: ns, body: janitorCronJob('cascade-janitor') });
    expect(await triggerJob('cascade-janitor')).toMatch(/^pod created: cascade-janitor-manual-/);
  });

  it("refuses the janitor's pods without their securityContext (FailedCreate)", async () => {
    await batch().createNamespacedCronJob({ namespace: ns, body: janitorCronJob('janitor-bare', true) });
    const outcome = await triggerJob('janitor-bare');
    expect(outcome).toMatch(/^refused: /);
    expect(outcome).toMatch(REFUSED);
  });

  it("accepts a Pod with the Knative Service's pod spec (the user container)", async () => {
    expect(await createPod(servicePod('cascade-function'))).toBe('accepted');
    const pod = await core().readNamespacedPod({ namespace: ns, name: 'cascade-function' });
    expect(pod.spec!.containers[0]!.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      readOnlyRootFilesystem: true,
    });
  });

  it("accepts a Pod with the pod spec of the dead-letter sink's Knative Service (dead-letter-sink.yaml), and refuses it bare", async () => {
    expect(await createPod(servicePod('cascade-dead-letters', undefined, 'dead-letter-sink.yaml'))).toBe('accepted');
    expect(
      await createPod(
        servicePod(
          'dead-letters-bare',
          (c) => {
            delete c.securityContext;
          },
          'dead-letter-sink.yaml',
        ),
      ),
    ).toMatch(REFUSED);
  });

  it('refuses that Pod without its securityContext', async () => {
    const outcome = await createPod(
      servicePod('function-bare', (c) => {
        delete c.securityContext;
      }),
    );
    expect(outcome).toMatch(REFUSED);
  });

  // each of the fields "restricted" requires, taken away alone, is refused
  it.each([
    ['runAsNonRoot', /runAsNonRoot != true/],
    ['allowPrivilegeEscalation', /allowPrivilegeEscalation != false/],
    ['capabilities', /unrestricted capabilities/],
    ['seccompProfile', /seccompProfile/],
  ] as const)('refuses that Pod without %s', async (field, reason) => {
    const outcome = await createPod(
      servicePod(`function-no-${field.toLowerCase()}`, (c) => {
        delete c.securityContext![field];
      }),
    );
    expect(outcome).toMatch(REFUSED);
    expect(outcome).toMatch(reason);
  });
});
