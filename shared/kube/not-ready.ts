// A refusal (401/403) from an API server that is not ready yet says nothing
// about permissions: kube-apiserver serves requests before its authorizer's
// caches have synced, and denies them meanwhile (measured here right after a
// restart; kubernetes/kubernetes#121635). Such a refusal is made transient
// (retried, then 503); one from a ready API server stays a refusal (500).
import { apiErrorKind, apiMessage } from './errors.ts';
import type { Rest } from './rest.ts';

/** Has no HTTP status: classified transient. */
export class NotReadyYet extends Error {
  override name = 'NotReadyYet';
}

/** Wraps a call so that a refusal while the API server's /readyz does not answer ok becomes NotReadyYet. */
export function refusalsWhileStarting(rest: Rest): <T>(call: () => Promise<T>) => Promise<T> {
  const ready = () =>
    rest<string>('GET', '/readyz', { text: true }).then(
      () => true,
      () => false,
    );
  return async (call) => {
    try {
      return await call();
    } catch (error) {
      if (apiErrorKind(error) !== 'refused' || (await ready())) throw error;
      throw new NotReadyYet(`the API server is not ready yet, and refused: ${apiMessage(error)}`, { cause: error });
    }
  };
}
