// Work done after the reply, in the background of the function's process:
// sending a run-end CloudEvent and recording it sent. One piece of work per
// key at a time (a redelivery while the event is being sent does not send it
// twice at once). On SIGTERM, drain() waits for what is running, at most the
// grace left, then aborts it: what was not done stays owed in the run's
// status for the janitor (or the next process) to do. It remembers the keys
// of the last work it finished (done() true), so that a caller holding a read
// older than that work can look again before doing it twice.
import type { Logger } from 'pino';

/** Keys of finished work remembered (the oldest are forgotten first). */
export const REMEMBERED = 4096;

export interface Outbox {
  /**
   * Starts `work` unless work of the same key is running. Work that resolves true is done.
   * The function's outbox resolves at once and never rejects: failures are logged. The janitor's resolves when the work is done.
   */
  send(key: string, work: (signal: AbortSignal) => Promise<boolean>): Promise<void>;
  /** Whether work of `key` was done in this process (one of the last REMEMBERED keys done). */
  done(key: string): boolean;
  /** Waits for the work running, at most `graceMs`, then aborts the rest; returns how many were aborted. */
  drain(graceMs: number): Promise<number>;
  /** Keys of the work running. */
  running(): string[];
}

export function outbox(log: Logger): Outbox {
  const work = new Map<string, { done: Promise<void>; abort: AbortController }>();
  const finished = new Set<string>();
  const remember = (key: string) => {
    finished.delete(key);
    finished.add(key);
    if (finished.size > REMEMBERED) finished.delete(finished.values().next().value as string);
  };
  return {
    send(key, run) {
      if (work.has(key)) return Promise.resolve();
      const abort = new AbortController();
      const done = (async () => {
        try {
          if (await run(abort.signal)) remember(key);
        } catch (error) {
          log.warn({ err: error, key }, 'background work failed: left owed for the next delivery or the janitor');
        } finally {
          work.delete(key);
        }
      })();
      work.set(key, { done, abort });
      return Promise.resolve();
    },
    async drain(graceMs) {
      if (work.size === 0) return 0;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all([...work.values()].map((w) => w.done)), grace]);
      clearTimeout(timer);
      const left = [...work.values()];
      for (const w of left) w.abort.abort(new Error('shutting down'));
      await Promise.all(left.map((w) => w.done));
      return left.length;
    },
    running: () => [...work.keys()],
    done: (key) => finished.has(key),
  };
}

/** The janitor's: the work is done before send() resolves, and its failure rejects. Nothing runs after, so nothing drains. */
export function inlineOutbox(): Outbox {
  return {
    send: async (_key, work) => void (await work(new AbortController().signal)),
    done: () => false,
    drain: async () => 0,
    running: () => [],
  };
}
