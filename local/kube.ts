// The local tooling's Kubernetes client (the bundled control plane, `npm run
// start:process`, the benchmarks) and the tests': @kubernetes/client-node
// API clients whose every call is tried again on 429 and 503 for a bounded
// time, waiting what Retry-After says (retry-after.ts). A CRD just made
// answers 429 "storage is (re)initializing" for a moment; a kube-apiserver
// that is starting answers 503. Beside them: a kubeconfig from a file, the
// light client's connection of it, polling for a state, namespaces,
// ServiceAccount identities. Nothing here knows about vitest:
// test/support/kube.ts binds these to the test cluster and to the test's
// lifetime.
import { randomBytes } from 'node:crypto';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  type ApiConstructor,
  type ApiType,
} from '@kubernetes/client-node';
import { fromKubeconfig, type Connection } from '../shared/kube/connection.ts';
import { apiStatus } from '../shared/kube/errors.ts';
import { pollUntil, sleep } from './cluster/poll.ts';
import { nextWaitMs } from './retry-after.ts';

export { apiStatus } from '../shared/kube/errors.ts';

export { sleep } from './cluster/poll.ts';

/** How long one call keeps trying, by default. */
export const RETRY_BUDGET_MS = 60_000;

function retryAfterOf(error: unknown): string | undefined {
  const headers = (error as { headers?: Record<string, string> } | null)?.headers ?? {};
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'retry-after');
  return key === undefined ? undefined : headers[key];
}

/** `call`, tried again on 429 and 503 until it passes, fails otherwise, or `budgetMs` is spent. */
export async function retryingCall<T>(call: () => Promise<T>, budgetMs = RETRY_BUDGET_MS): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = nextWaitMs(
        { status: apiStatus(error), retryAfter: retryAfterOf(error) },
        attempt,
        Date.now() - started,
        budgetMs,
      );
      if (wait === undefined) throw error;
      await sleep(wait);
    }
  }
}

/** `api` with each of its methods' calls made through retryingCall. */
export function retrying<T extends object>(api: T, budgetMs = RETRY_BUDGET_MS): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        retryingCall(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args), budgetMs);
    },
  });
}

/** `kc.makeApiClient(type)`, retrying. */
export function apiClient<T extends ApiType>(kc: KubeConfig, type: ApiConstructor<T>): T {
  return retrying(kc.makeApiClient(type));
}

/** `KubernetesObjectApi.makeApiClient(kc)`, retrying. */
export function objectApi(kc: KubeConfig): KubernetesObjectApi {
  return retrying(KubernetesObjectApi.makeApiClient(kc));
}

/**
 * One line for a failed call: client-node's ApiException prints its code,
 * body and headers over several lines; this keeps the status and the API
 * server's message.
 */
export function oneLine(error: unknown): string {
  const status = apiStatus(error);
  if (status === undefined || !(error instanceof Error)) {
    return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  }
  const body = (error as { body?: unknown }).body;
  let message: string | undefined;
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    message = (parsed as { message?: string } | undefined)?.message;
  } catch {
    message = undefined;
  }
  return `the Kubernetes API answered ${status}${message ? `: ${message}` : ''}`;
}

/** The current context's server and credentials (certificates, a token, or a token file), for the light client's informer. */
export function connectionOf(kc: KubeConfig): Connection {
  return fromKubeconfig(kc.exportConfig());
}

export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  message?: string;
}

/**
 * Polls `predicate` until it returns a value other than undefined/false and
 * returns it; errors it throws count as "not yet".
 */
export function waitFor<T>(
  predicate: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitForOptions = {},
): Promise<T> {
  return pollUntil(predicate, {
    timeoutMs: options.timeoutMs ?? 30_000,
    intervalMs: options.intervalMs ?? 200,
    what: options.message ?? 'condition',
  });
}

/**
 * Creates a namespace with a unique name and waits until its `default`
 * ServiceAccount exists (pods need it).
 */
export async function createNamespace(admin: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const core = apiClient(admin, CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { 'cascade.cascade.net/test': 'true' } } } });
  await waitFor(() => core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    timeoutMs: 30_000,
    message: `ServiceAccount default in ${name}`,
  });
  return name;
}

/**
 * No janitor runs in a namespace of the local stack to release the
 * CascadeAutoOperators' finalizer (shutdown.cascade.cascade.net/finalizer),
 * which would keep the namespace Terminating: drop every finalizer of them.
 */
async function releaseOperators(admin: KubeConfig, namespace: string): Promise<void> {
  const custom = apiClient(admin, CustomObjectsApi);
  const at = { group: 'cascade.cascade.net', version: 'v1alpha1', namespace, plural: 'cascadeautooperators' };
  type Listed = { metadata?: { name?: string; finalizers?: string[] } }[];
  // A CRD just established answers 429 "storage is (re)initializing" for a moment: waitFor tries again.
  const items = await waitFor(
    () =>
      custom.listNamespacedCustomObject(at).then(
        (list) => (list as { items: Listed }).items,
        (error: unknown) => {
          if (apiStatus(error) === 404) return [] as Listed; // no CRD, or no namespace
          throw error;
        },
      ),
    { message: `CascadeAutoOperators of ${namespace} listed` },
  );
  await Promise.all(
    items
      .filter((op) => op.metadata?.finalizers?.length)
      .map(async (op) => {
        try {
          await custom.patchNamespacedCustomObject({
            ...at,
            name: op.metadata!.name!,
            body: [{ op: 'remove', path: '/metadata/finalizers' }],
          });
        } catch (error) {
          if (apiStatus(error) !== 404 && apiStatus(error) !== 422) throw error;
        }
      }),
  );
}

/** Deletes a namespace (in the background), its CascadeAutoOperators released first; one already gone is fine. */
export async function deleteNamespace(admin: KubeConfig, name: string): Promise<void> {
  await releaseOperators(admin, name);
  try {
    await apiClient(admin, CoreV1Api).deleteNamespace({ name, propagationPolicy: 'Background' });
  } catch (error) {
    if (apiStatus(error) !== 404) throw error;
  }
}

/**
 * A KubeConfig that authenticates as ServiceAccount `saName` in `namespace`
 * with a token from the TokenRequest API (same server and CA as the admin).
 */
export async function serviceAccountKubeConfig(
  admin: KubeConfig,
  namespace: string,
  saName: string,
  options: { expirationSeconds?: number } = {},
): Promise<KubeConfig> {
  const response = await apiClient(admin, CoreV1Api).createNamespacedServiceAccountToken({
    name: saName,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: options.expirationSeconds ?? 3600 } },
  });
  const token = response.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${saName} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('admin kubeconfig has no current cluster');
  const user = `system:serviceaccount:${namespace}:${saName}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster.name,
        server: cluster.server,
        caData: cluster.caData,
        caFile: cluster.caFile,
        skipTLSVerify: false,
      },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return kc;
}
