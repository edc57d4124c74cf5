// When a refused Kubernetes call of the local tooling is worth trying again,
// and after how long. An API server answers 429 while a CRD's storage
// initialises and under its rate limits, and 503 while it starts; both carry
// Retry-After in seconds. Pure: the caller sleeps and counts the time.

/** The statuses retried: 429 Too Many Requests and 503 Service Unavailable. */
export const RETRIED = new Set([429, 503]);

/** Without Retry-After: 200 ms, doubling to 2 s. */
const FIRST_WAIT_MS = 200;
const MAX_WAIT_MS = 2000;
/** A Retry-After longer than this is cut to it: the budget, not the server, bounds the wait. */
const MAX_RETRY_AFTER_MS = 5000;

/** Retry-After's delay-seconds form, the one kube-apiserver sends; undefined when absent or not a number. */
export function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Math.min(Number(header) * 1000, MAX_RETRY_AFTER_MS);
}

export interface Refusal {
  status: number | undefined;
  retryAfter: string | undefined;
}

/**
 * The wait after failed attempt `attempt` (the first is 1), or undefined when
 * the call is not tried again: another status, or `spentMs` plus the wait
 * would pass `budgetMs`.
 */
export function nextWaitMs(
  { status, retryAfter }: Refusal,
  attempt: number,
  spentMs: number,
  budgetMs: number,
): number | undefined {
  if (status === undefined || !RETRIED.has(status)) return undefined;
  const wait = retryAfterMs(retryAfter) ?? Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS);
  return spentMs + wait > budgetMs ? undefined : wait;
}
