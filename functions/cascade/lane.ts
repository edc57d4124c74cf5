// Which requests the token bucket may refuse. The bucket sheds floods of new
// work: run requests and resume requests, each of which starts a run's work
// again. Everything else is progress of a run already admitted: a Job's
// change, a module result, a cancel, a CascadeRun's own change. Refusing
// progress only delays runs already paid for, so the bucket never sees it.
// Progress is bounded by concurrency instead: queue-proxy's
// containerConcurrency, which answers 503 past its queue.
import type { Request } from './inputs.ts';

export type Lane = 'new-work' | 'progress';

const LANE: Record<Request['kind'], Lane> = {
  run: 'new-work',
  resume: 'new-work',
  // A body that failed its checks may be a run request: it stays behind the bucket, as before.
  invalid: 'new-work',
  result: 'progress',
  job: 'progress',
  cancel: 'progress',
  'run-requests': 'progress',
  'run-start': 'progress',
  ignored: 'progress',
};

export function laneOf(req: Request): Lane {
  return LANE[req.kind];
}
