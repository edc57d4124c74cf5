// A best-effort wake-up for a retry waiting for its backoff. The wait itself
// is durable: the step's `retryAt` in the run's status, acted on by whoever
// decides the run after that time (the janitor's next sweep at the latest).
// While this process lives, a timer spares that wait: it looks at the run
// again when the earliest retry is due. Nothing is lost when the process
// goes (scaled to zero, killed): the timer only makes it sooner.
import type { CascadeRun } from '../../api/cascade-run.ts';
import type { Logger } from 'pino';

/** setTimeout's longest delay; a later retry is left to the janitor (or a later event). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Looks at a run again when its earliest retry is due. */
export interface RetryWakeups {
  wake(run: CascadeRun, look: () => Promise<unknown>): void;
}

/** The janitor's: no timer. Its next sweep looks at the run. */
export const NO_WAKEUPS: RetryWakeups = { wake: () => {} };

/** The earliest `retryAt` of the run's steps, as milliseconds since the epoch. */
export function nextRetryAt(run: CascadeRun): number | undefined {
  const times = (run.status?.modules ?? [])
    .map((m) => (m.retryAt ? Date.parse(m.retryAt) : Number.NaN))
    .filter(Number.isFinite);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** The function's: one timer per run in this process; a new decision replaces it. */
export function retryTimers(now: () => Date, log: Logger): RetryWakeups {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return {
    wake(run, look) {
      const name = run.metadata.name;
      clearTimeout(timers.get(name));
      timers.delete(name);
      const at = nextRetryAt(run);
      if (at === undefined) return;
      const delay = Math.max(0, at - now().getTime()) + 50;
      if (delay > MAX_DELAY_MS) return;
      const timer = setTimeout(() => {
        if (timers.get(name) === timer) timers.delete(name);
        look().catch((error: unknown) =>
          log.warn({ err: error, run: name }, 'retry wake-up failed: the janitor starts the retry'),
        );
      }, delay);
      timer.unref();
      timers.set(name, timer);
    },
  };
}
