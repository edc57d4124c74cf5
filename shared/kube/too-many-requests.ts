// The API server's 429 asks to come back. It says "too many requests", or
// "storage is (re)initializing" while the server starts or rebuilds its watch
// cache. It is retried as kubectl's client does: after its Retry-After, else
// 1 s, up to 10 tries. Any other error is the caller's at once.

const TRIES = 10;

function retryAfterMs(error: unknown): number | undefined {
  const e = error as { code?: unknown; headers?: Record<string, string | undefined> } | undefined;
  if (e?.code !== 429) return undefined;
  const seconds = Number(e.headers?.['retry-after'] ?? e.headers?.['Retry-After'] ?? 1);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : 1000;
}

export async function retryTooManyRequests<T>(
  call: () => Promise<T>,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || attempt >= TRIES) throw error;
      await sleep(wait);
    }
  }
}
