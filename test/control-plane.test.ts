// The local control plane behaves like a real cluster for what Cascade
// needs: Jobs run through kwok to Complete/Failed, TTL and garbage collection
// remove finished and orphaned Jobs, deleted pods go away, and RBAC applies
// to ServiceAccount tokens.
import { describe, expect, it } from 'vitest';
import { BatchV1Api, CoreV1Api, RbacAuthorizationV1Api, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { adminKubeConfig, apiStatus, createTestNamespace, serviceAccountKubeConfig, waitFor } from './support/kube.ts';

const admin = adminKubeConfig();
const batch = admin.makeApiClient(BatchV1Api);
const core = admin.makeApiClient(CoreV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);

const DELAY_ANNOTATION = 'cascade.cascade.net/kwok-delay-ms';
const FAIL_LABEL = 'cascade.cascade.net/kwok-fail';

interface JobOptions {
  delayMs?: number;
  fail?: boolean;
  ttlSecondsAfterFinished?: number;
  ownerReferences?: NonNullable<V1Job['metadata']>['ownerReferences'];
}

function jobManifest(name: string, options: JobOptions = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ownerReferences: options.ownerReferences },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: options.ttlSecondsAfterFinished,
      template: {
        metadata: {
          labels: options.fail ? { [FAIL_LABEL]: 'true' } : {},
          annotations: options.delayMs === undefined ? {} : { [DELAY_ANNOTATION]: String(options.delayMs) },
        },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'module', image: 'registry.invalid/cascade/module:test', command: ['run'] }],
        },
      },
    },
  };
}

const hasCondition = (job: V1Job, type: string) =>
  job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

async function waitJobCondition(namespace: string, name: string, type: 'Complete' | 'Failed'): Promise<V1Job> {
  return waitFor(
    async () => {
      const job = await batch.readNamespacedJob({ name, namespace });
      return hasCondition(job, type) ? job : undefined;
    },
    { timeoutMs: 60_000, message: `Job ${namespace}/${name} ${type}` },
  );
}

async function jobPods(namespace: string, jobName: string): Promise<V1Pod[]> {
  const { items } = await core.listNamespacedPod({ namespace, labelSelector: `job-name=${jobName}` });
  return items;
}

const exitCode = (pod: V1Pod | undefined) => pod?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;

async function waitGone(read: () => Promise<unknown>, message: string): Promise<void> {
  await waitFor(
    async () => {
      try {
        await read();
        return false;
      } catch (error) {
        if (apiStatus(error) === 404) return true;
        throw error;
      }
    },
    { timeoutMs: 60_000, message },
  );
}

describe('control plane', () => {
  it('has two Ready kwok nodes', async () => {
    const { items } = await core.listNode({ labelSelector: 'type=kwok' });
    expect(items.map((n) => n.metadata?.name).sort()).toEqual(['kwok-node-0', 'kwok-node-1']);
    for (const node of items) {
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
  });

  it('runs a Job to Complete through kwok after the annotated delay', async () => {
    const namespace = await createTestNamespace();
    const started = Date.now();
    await batch.createNamespacedJob({ namespace, body: jobManifest('succeeds', { delayMs: 2000 }) });

    const running = await waitFor(
      async () => (await jobPods(namespace, 'succeeds')).find((p) => p.status?.phase === 'Running'),
      { message: 'pod Running' },
    );
    expect(running).toMatchObject({
      spec: { nodeName: expect.stringMatching(/^kwok-node-/) },
      metadata: { annotations: { [DELAY_ANNOTATION]: '2000' } },
    });

    const job = await waitJobCondition(namespace, 'succeeds', 'Complete');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(job.status?.succeeded).toBe(1);
    expect(hasCondition(job, 'Failed')).toBe(false);

    const [pod] = await jobPods(namespace, 'succeeds');
    expect(pod?.status?.phase).toBe('Succeeded');
    expect(exitCode(pod)).toBe(0);
  });

  it('fails a Job whose pod carries the kwok-fail label (backoffLimit 0)', async () => {
    const namespace = await createTestNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('fails', { fail: true }) });

    const job = await waitJobCondition(namespace, 'fails', 'Failed');
    expect(job.status?.failed).toBe(1);
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(hasCondition(job, 'Complete')).toBe(false);

    const pods = await jobPods(namespace, 'fails');
    expect(pods).toHaveLength(1);
    expect(pods[0]?.status?.phase).toBe('Failed');
    expect(exitCode(pods[0])).toBe(1);
  });

  it('removes a finished Job (and its pods) after ttlSecondsAfterFinished', async () => {
    const namespace = await createTestNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('short-lived', { ttlSecondsAfterFinished: 0 }) });
    await waitGone(() => batch.readNamespacedJob({ name: 'short-lived', namespace }), 'Job short-lived deleted by TTL');
    await waitFor(async () => (await jobPods(namespace, 'short-lived')).length === 0, {
      timeoutMs: 60_000,
      message: 'pods of short-lived gone',
    });
  });

  it('garbage-collects a Job when its owner is deleted', async () => {
    const namespace = await createTestNamespace();
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'owner' }, data: { scenario: 'demo' } },
    });
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '', blockOwnerDeletion: true },
    ];
    await batch.createNamespacedJob({ namespace, body: jobManifest('owned', { delayMs: 60_000, ownerReferences }) });
    await waitFor(async () => (await jobPods(namespace, 'owned')).some((p) => p.status?.phase === 'Running'), {
      message: 'pod of owned Running',
    });

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace, propagationPolicy: 'Background' });
    await waitGone(() => batch.readNamespacedJob({ name: 'owned', namespace }), 'Job owned garbage-collected');
    // its running pod is deleted too and really goes away
    await waitFor(async () => (await jobPods(namespace, 'owned')).length === 0, {
      timeoutMs: 60_000,
      message: 'pods of owned gone',
    });
  });

  it('deletes a running pod for real', async () => {
    const namespace = await createTestNamespace();
    await batch.createNamespacedJob({ namespace, body: jobManifest('long', { delayMs: 600_000 }) });
    const pod = await waitFor(
      async () => (await jobPods(namespace, 'long')).find((p) => p.status?.phase === 'Running'),
      { message: 'pod of long Running' },
    );
    const name = pod.metadata?.name ?? '';
    await core.deleteNamespacedPod({ name, namespace });
    await waitGone(() => core.readNamespacedPod({ name, namespace }), `pod ${name} gone`);
  });

  it('authorizes a ServiceAccount token exactly as its Role says', async () => {
    const namespace = await createTestNamespace();
    const other = await createTestNamespace();
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'runner' } } });
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'runner-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmaps' },
        subjects: [{ kind: 'ServiceAccount', name: 'runner', namespace }],
      },
    });

    const sa = await serviceAccountKubeConfig(namespace, 'runner');
    const saCore = sa.makeApiClient(CoreV1Api);
    const saBatch = sa.makeApiClient(BatchV1Api);

    const created = await saCore.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'allowed' } } });
    expect(created.metadata?.name).toBe('allowed');
    const listed = await saCore.listNamespacedConfigMap({ namespace });
    expect(listed.items.map((c) => c.metadata?.name)).toContain('allowed');

    const denied = [
      () => saCore.listNamespacedSecret({ namespace }),
      () => saCore.deleteNamespacedConfigMap({ name: 'allowed', namespace }),
      () => saCore.listNamespacedConfigMap({ namespace: other }),
      () => saBatch.createNamespacedJob({ namespace, body: jobManifest('not-allowed') }),
    ];
    for (const call of denied) {
      const status = await call().then(
        () => 200,
        (error: unknown) => apiStatus(error),
      );
      expect(status).toBe(403);
    }
  });
});
