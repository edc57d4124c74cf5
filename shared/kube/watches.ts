// The function's watches in its namespace, each one request per process,
// kept open (watch-stream.ts). Cascade's Jobs, those labelled with a run: each
// change goes to engine/process/watched-jobs.ts, which keeps the finished
// ones. The CascadeAutoOperators: each change goes to the counters' cached
// copies (engine/operator/operator-counters.ts offerWatched). The CascadeRuns:
// each change goes to the runs this process holds (engine/process/run-cache.ts).
import type { Logger } from 'pino';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import { CASCADE_AUTO_OPERATOR_PLURAL, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../api/group.ts';
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

export function watchOperators(
  conn: Connection,
  namespace: string,
  see: (change: WatchChange, op: CascadeAutoOperator) => void,
  log: Logger,
): KeptWatch {
  return keepWatching({
    conn,
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_AUTO_OPERATOR_PLURAL}`,
    on: (change, object) => see(change, object as CascadeAutoOperator),
    log,
  });
}

export function watchRuns(
  conn: Connection,
  namespace: string,
  see: (change: WatchChange, run: CascadeRun) => void,
  log: Logger,
): KeptWatch {
  return keepWatching({
    conn,
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`,
    on: (change, object) => see(change, object as CascadeRun),
    log,
  });
}
