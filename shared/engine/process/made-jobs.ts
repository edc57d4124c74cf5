// The names of the Jobs this process made. When its watch of Jobs shows one
// of them finished, the process moves that Job's run at once
// (sync/own-jobs.ts), without waiting for the Broker to deliver the Job's
// event. Bounded, oldest out first. Correctness never rests on it: a Job
// another process made, or one made before a restart, moves by its event.
import { boundedSet, type BoundedSet } from './bounded-set.ts';

export type MadeJobs = BoundedSet;

export const madeJobs = (capacity = 10_000): MadeJobs => boundedSet(capacity);

/** The janitor's: it keeps no watch, so it remembers none. */
export const NO_MADE_JOBS: MadeJobs = { add: () => {}, has: () => false };
