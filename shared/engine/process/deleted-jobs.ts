// Thrift within one process: the uids of the Jobs it deleted. A Job is
// deleted only once its run no longer needs it, so its later events (the
// Complete that came after SuccessCriteriaMet, its deletion) move nothing:
// they are answered without an API call, and never delete it a second time.
// Bounded, oldest out first. Correctness never rests on it.
export interface DeletedJobs {
  add(uid: string): void;
  has(uid: string): boolean;
}

export function deletedJobs(capacity = 10_000): DeletedJobs {
  const uids = new Set<string>();
  return {
    add(uid) {
      uids.delete(uid);
      uids.add(uid);
      if (uids.size > capacity) uids.delete(uids.values().next().value!);
    },
    has: (uid) => uids.has(uid),
  };
}

/** The janitor's: remembers nothing, so every event of a deleted Job is decided. */
export const NO_DELETED_JOBS: DeletedJobs = { add: () => {}, has: () => false };
