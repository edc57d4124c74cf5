// The opt-in check of who calls the function directly (CASCADE_AUTH_TOKEN):
// a caller proves it knows the shared token with `Authorization: Bearer
// <token>`. For a Knative Service exposed on purpose outside the cluster
// (docs/deploy/exposing.md); the cluster-local Service the Broker delivers to runs
// without it. Pure: no clock, no I/O.
import { createHash, timingSafeEqual } from 'node:crypto';

/** What a 401 reply names as the scheme it wants. */
export const CHALLENGE = 'Bearer realm="cascade"';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether `authorization` (the request's header) is `Bearer <token>`: compared in constant time, whatever its length. */
export function callerAllowed(authorization: string | string[] | undefined, token: string): boolean {
  if (typeof authorization !== 'string') return false;
  const match = /^Bearer ([^\s]+)$/i.exec(authorization);
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), digest(token));
}
