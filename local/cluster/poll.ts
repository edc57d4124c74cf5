// Polling until a condition holds.

export interface PollOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
  /** Checked on every round; throwing stops the wait (e.g. a process died). */
  abort?: () => void | Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `check` until it returns something other than undefined/false and
 * returns that value. Errors thrown by `check` count as "not yet" and the
 * last one is reported on timeout.
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: PollOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    await options.abort?.();
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what ?? 'condition'}${reason}`);
    }
    await sleep(options.intervalMs ?? 200);
  }
}
