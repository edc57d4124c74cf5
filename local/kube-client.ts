// @kubernetes/client-node API clients for the local tooling (`npm run start:process`, the
// local stack, the tests' helpers) whose every call is tried again on 429 and
// 503 for a bounded time, waiting what Retry-After says (retry-after.ts). A
// CRD just made answers 429 "storage is (re)initializing" for a moment; a
// kube-apiserver that is starting answers 503.
import { KubernetesObjectApi, type ApiConstructor, type ApiType, type KubeConfig } from '@kubernetes/client-node';
import { sleep } from './cluster/poll.ts';
import { nextWaitMs } from './retry-after.ts';

/** How long one call keeps trying, by default. */
export const RETRY_BUDGET_MS = 60_000;

/** HTTP status of a failed call (client-node's ApiException.code, the light client's ApiError.code), if any. */
export function apiStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

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
