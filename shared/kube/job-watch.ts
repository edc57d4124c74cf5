// The function's watch of Cascade's Jobs in its namespace: those labelled with
// a run. One request per process, kept open (watch-stream.ts). Each change is
// handed to `see`, which keeps the finished ones (engine/process/watched-jobs.ts).
import type { Logger } from 'pino';
import type { JobObject } from '../core/observed-job.ts';
import { LABEL_RUN } from '../names.ts';
import type { Connection } from './connection.ts';
import { keepWatching, type KeptWatch, type WatchChange } from './watch-stream.ts';

export function watchJobs(
  conn: Connection,
  namespace: string,
  see: (change: WatchChange, job: JobObject) => void,
  log: Logger,
): KeptWatch {
  return keepWatching({
    conn,
    path: `/apis/batch/v1/namespaces/${namespace}/jobs`,
    query: { labelSelector: LABEL_RUN },
    on: (change, object) => see(change, object as JobObject),
    log,
  });
}
