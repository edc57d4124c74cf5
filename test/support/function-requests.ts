// The function's own API requests, counted exactly from the API server's
// audit log (local/cluster/audit-policy.yaml) under its ServiceAccount.
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { auditLinesSince, auditLogOf, countByClient, type ClientRequests } from './audit-log.ts';
import { serviceAccountUser } from '../../local/function-rbac.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './kube.ts';

/**
 * The function's requests in namespace `ns` logged after `mark`, up to a
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
  return countByClient(lines, clients).fn!;
}
