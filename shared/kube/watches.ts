// The function's watches in its namespace, each one request per process,
// kept open (watch-stream.ts). Cascade's Jobs, those labelled with a run: each
// change goes to engine/process/watched-jobs.ts, which keeps the finished
// ones. The CascadeAutoOperators: each change goes to the admission's cached
// copies (engine/operator/admission-writes.ts offerWatched). The CascadeRuns:
// each change goes to the runs this process holds (engine/process/run-cache.ts).
import type { Logger } from 'pino';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { CASCADE_AUTO_OPERATOR_PLURAL, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../api/group.ts';
import type { JobObject } from '../core/observed-job.ts';
import { LABEL_RUN } from '../names.ts';
import type { Connection } from './connection.ts';
import { keepWatching, type KeptWatch, type WatchChange } from './watch-stream.ts';

/**
 * Where a watch's changes go: each change to `see` (`listed`: from a list, not the watch), whether it is open
 * to `opened`, and every object of each list to `listed`.
 */
export interface WatchTo<T> {
  see: (change: WatchChange, object: T, listed: boolean) => void;
  opened?: (open: boolean) => void;
  listed?: (items: readonly T[]) => void;
  log: Logger;
}

type Watch<T> = (conn: Connection, namespace: string, to: WatchTo<T>) => KeptWatch;

/** A watch of the collection at `path(namespace)`, each object handed over as a `T`. */
function watchOf<T>(path: (namespace: string) => string, query?: Record<string, string>): Watch<T> {
  return (conn, namespace, { see, opened, listed, log }) =>
    keepWatching({
      conn,
      path: path(namespace),
      query,
      on: (change, object, fromList) => see(change, object as T, fromList),
      opened,
      listed: listed && ((items) => listed(items as T[])),
      log,
    });
}

export const watchJobs = watchOf<JobObject>((ns) => `/apis/batch/v1/namespaces/${ns}/jobs`, {
  labelSelector: LABEL_RUN,
});

export const watchOperators = watchOf<CascadeAutoOperator>(
  (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${CASCADE_AUTO_OPERATOR_PLURAL}`,
);

export const watchRuns = watchOf<CascadeRun>(
  (ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${CASCADE_RUN_PLURAL}`,
);
