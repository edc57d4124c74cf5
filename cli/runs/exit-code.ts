// How a run's end becomes the exit status of `watch` and `submit --watch`. Pure.

/** Exit status of the CLI itself failing (bad usage, an API error, a run not found). */
export const EXIT_ERROR = 1;

/** Exit status of a command stopped by Ctrl-C (SIGINT), as kubectl and shells give it: 128 + 2. */
export const EXIT_INTERRUPTED = 130;

const BY_PHASE: Record<string, number> = { Succeeded: 0, Failed: 2, Cancelled: 3 };

/** 0 Succeeded, 2 Failed, 3 Cancelled (1 is the CLI's own error); undefined while the run goes on. */
export function exitCodeOf(phase: string | undefined): number | undefined {
  return BY_PHASE[phase ?? ''];
}
