// The pause between optimistic-concurrency retries (a 409 on a status write).

/** Full-jitter backoff, so that racing writers spread out. */
export function conflictPause(attempt: number): Promise<void> {
  const ceiling = Math.min(500, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
