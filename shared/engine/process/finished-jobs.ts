// Thrift within one process: a finished Job stays finished, so once one of
// its events moved its run (or found nothing to move), its later events
// (another update, its deletion after the step was recorded) have nothing new
// to tell. The first event's work is shared by those that arrive while it
// runs, and remembered (the last `capacity` Jobs) once it succeeded. A failure
// is forgotten, so a redelivery does the work again. So is a result `keep`
// refuses (an event the API server contradicted): the events that shared it
// do their own work, so a forged event never stands for a true one.
// Correctness never rests on it: another process, or this one after a
// restart, reads the run again.

export type FinishedJobs = <T>(key: string, work: () => Promise<T>, keep?: (value: T) => boolean) => Promise<T>;

export function finishedJobs(capacity = 10_000): FinishedJobs {
  const seen = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> => {
    const known = seen.get(key) as Promise<T> | undefined;
    if (known) return known.then((value) => (keep(value) ? value : work()));
    const done = work();
    seen.set(key, done);
    if (seen.size > capacity) seen.delete(seen.keys().next().value!);
    const forget = () => {
      if (seen.get(key) === done) seen.delete(key);
    };
    done.then((value) => keep(value) || forget(), forget);
    return done;
  };
}

/** The janitor's: every event does its own work. */
export const EVERY_TIME: FinishedJobs = (_key, work) => work();
