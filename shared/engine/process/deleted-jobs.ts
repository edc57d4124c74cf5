// Thrift within one process: the uids of the Jobs it deleted. A Job is
// deleted only once its run no longer needs it, so its later events (the
// Complete that came after SuccessCriteriaMet, its deletion) move nothing:
// they are answered without an API call, and never delete it a second time.
import { boundedSet, type BoundedSet } from './bounded-set.ts';

export type DeletedJobs = BoundedSet;

export const deletedJobs = (capacity = 10_000): DeletedJobs => boundedSet(capacity);

/** The janitor's: remembers nothing, so every event of a deleted Job is decided. */
export const NO_DELETED_JOBS: DeletedJobs = { add: () => {}, has: () => false };
