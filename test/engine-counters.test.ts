// The CascadeAutoOperator's counters as a function of its runs, against the
// real API server, with two replicas. The replica holding the counters' Lease
// writes them; the other writes none. No write on the operator's status is
// refused 409. Killed, the holder is replaced once its Lease runs out, and the
// counters follow the runs again. A count written wrong is put right: nothing
// is incremented, so nothing can count twice (docs/architecture.md, "Counters").
// A write refused (here by a ValidatingAdmissionPolicy) is tried again until
// it is written, though no run changes.
import {
  AdmissionregistrationV1Api,
  CoordinationV1Api,
  type V1ValidatingAdmissionPolicy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLinesSince, auditLogOf, auditMark } from './support/audit-log.ts';
import { serviceAccountUser } from '../local/function-rbac.ts';
import { operatorRequests } from '../bench/sustained-figures.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';
import { kubectl, parseMetrics, scrape, value } from './support/ops.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('only', {}, { delayMs: 0 })], replicas: 2, faults: true });
});
afterAll(async () => {
  await h?.stop();
});

/** Whether replica i holds the counters' Lease, from its metrics. */
async function holds(i: number): Promise<boolean> {
  return value(parseMetrics(await scrape(h.fns[i]!.metricsUrl)), 'cascade_counters_writer', {}) === 1;
}

/** The replica that holds the Lease, once one does. */
async function holder(among: number[]): Promise<number> {
  return waitFor(
    async () => {
      for (const i of among) if (await holds(i)) return i;
      return undefined;
    },
    { timeoutMs: 60_000, message: 'a replica holds the counters Lease' },
  );
}

/** `n` run requests at once, replica by replica in turn; resolves once every run ended. */
async function burst(prefix: string, n: number, replicas: number[]): Promise<void> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      post(h.url(replicas[i % replicas.length]), { turlinfo: 's3://in/x.tgz', iuid: `${prefix}${i}` }),
    ),
  );
  for (const r of replies) expect(r.status).toBe(200);
  await Promise.all(replies.map((r) => h.waitEnded(String(r.body.run), 120_000)));
}

const ops = () => adminKubeConfig().makeApiClient(CoordinationV1Api);

/** A ValidatingAdmissionPolicy that refuses `user`'s writes of the operators' status. */
function refuseStatusWrites(name: string, user: string): V1ValidatingAdmissionPolicy {
  return {
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: ['cascade.cascade.net'],
            apiVersions: ['*'],
            operations: ['UPDATE'],
            resources: ['cascadeautooperators/status'],
          },
        ],
      },
      validations: [{ expression: `request.userInfo.username != '${user}'`, message: 'refused by the test' }],
    },
  };
}

describe("the operator's counters, written by the Lease's holder from the runs", () => {
  let first = -1;

  it('runs sent to both replicas at once: the counters end exact, and no operator write is refused 409', async () => {
    // Each replica loads its engine at its first request and opens its watches and its Lease a second later.
    await burst('d0a1', 1, [0]);
    await burst('d0b1', 1, [1]);
    first = await holder([0, 1]);
    expect(await holds(1 - first)).toBe(false);
    const lease = await ops().readNamespacedLease({ name: 'cascade-counters', namespace: h.ns });
    expect(lease.spec?.holderIdentity).toMatch(/-[0-9a-f]{6}$/);
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    await burst('d1a', 20, [0, 1]);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, queued: 0, succeeded: 22, failed: 0, result: 'Success' });
    const lines = auditLinesSince(auditLogOf(adminKubeconfigPath()), mark);
    const { statusWrites, conflicts } = operatorRequests(lines, serviceAccountUser(h.ns, 'cascade-function'));
    expect(statusWrites).toBeGreaterThan(0);
    expect(statusWrites).toBeLessThanOrEqual(44);
    expect(conflicts).toBe(0);
  });

  it('a count written wrong by hand is put right from the runs', async () => {
    const op = await h.operator();
    await h.custom.replaceNamespacedCustomObjectStatus({
      group: 'cascade.cascade.net',
      version: 'v1alpha1',
      namespace: h.ns,
      plural: 'cascadeautooperators',
      name: SCENARIO,
      body: { ...op, status: { ...op.status, active: 7, succeeded: 1 } },
    });
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 22 });
  });

  it('a counters write refused is tried again, with no run changing, until it is written', async () => {
    const user = serviceAccountUser(h.ns, 'cascade-function');
    const name = `${h.ns}-refuse-counters`;
    const admission = adminKubeConfig().makeApiClient(AdmissionregistrationV1Api);
    await admission.createValidatingAdmissionPolicy({ body: refuseStatusWrites(name, user) });
    const binding = {
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': h.ns } } },
      },
    };
    await admission.createValidatingAdmissionPolicyBinding({ body: binding });
    try {
      // In force once a status write as the function's ServiceAccount is refused.
      const refused = () =>
        kubectl(
          ...['-n', h.ns, 'patch', 'cascadeautooperator', SCENARIO, '--subresource=status', '--type=merge'],
          ...['-p', '{"status":{"active":5}}', '--dry-run=server', `--as=${user}`],
        )
          .then(() => false)
          .catch((error: unknown) => String(error).includes('refused by the test'));
      await waitFor(refused, { message: 'the policy in force' });
      const before = h.fns[first]!.output().split('counters not written').length;
      await burst('d3a', 2, [first]);
      await waitFor(() => h.fns[first]!.output().split('counters not written').length > before, {
        message: 'a counters write refused',
      });
      expect((await h.operator()).status).toMatchObject({ succeeded: 22 });
    } finally {
      await admission.deleteValidatingAdmissionPolicyBinding({ name });
      await admission.deleteValidatingAdmissionPolicy({ name });
    }
    // No run changes any more: only the writer's own retry can write the counters.
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 24 });
  });

  it('the holder killed, the other replica takes the Lease once it runs out, and the counters follow the runs', async () => {
    expect(first).toBeGreaterThanOrEqual(0);
    const other = 1 - first;
    await h.fns[first]!.stop('SIGKILL');
    await burst('d2a', 4, [other]);
    expect(await holder([other])).toBe(other);
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 28, failed: 0 });
  });
});
