// The function's own API requests, counted exactly from the API server's
// audit log (local/cluster/audit-policy.yaml) under its ServiceAccount. Those
// on Leases are left out: the counters' Lease is renewed on its own clock, not
// because of what a test sends.
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { auditLinesSince, auditLogOf, countByClient, READ_VERBS, type ClientRequests } from './audit-log.ts';
import { serviceAccountUser } from '../../local/function-rbac.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';

/** `requests` less those on Leases. */
export function withoutLeases(requests: ClientRequests): ClientRequests {
  const out = { ...requests, byVerb: { ...requests.byVerb } };
  for (const [key, count] of Object.entries(requests.byVerb)) {
    if (!key.startsWith('leases ')) continue;
    delete out.byVerb[key];
    if ((READ_VERBS as readonly string[]).includes(key.slice('leases '.length))) out.reads -= count;
    else out.writes -= count;
  }
  return out;
}

/**
 * The function's requests in namespace `ns` logged after `mark`, but those on Leases, up to a
 * request the test makes itself after every reply it waited for (the audit
 * log is written in order), once `events` Kubernetes Events (written beside
 * the reply) are in.
 */
export async function functionRequests(ns: string, mark: number, events: number): Promise<ClientRequests> {
  const log = auditLogOf(adminKubeconfigPath());
  const clients = { fn: serviceAccountUser(ns, 'cascade-function') };
  await waitFor(() => countByClient(auditLinesSince(log, mark), clients).fn!.events >= events || undefined, {
    message: `${events} Event(s) recorded`,
  });
  const barrier = `barrier-${randomUUID().slice(0, 8)}`;
  await adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .readNamespacedConfigMap({ name: barrier, namespace: ns })
    .catch(() => undefined);
  const lines = await waitFor(
    () => {
      const all = auditLinesSince(log, mark);
      const at = all.findIndex((l) => l.includes(barrier));
      return at >= 0 ? all.slice(0, at) : undefined;
    },
    { message: 'the barrier request in the audit log' },
  );
  return withoutLeases(countByClient(lines, clients).fn!);
}
