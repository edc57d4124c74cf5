// One request, start to reply: classify it, hand it to the engine, map any
// error to a status a sender can act on. Never throws: faas-js-runtime would
// turn an error's `code` (a Kubernetes status) into the reply.
import type { Logger } from 'pino';
import type { EngineDeps } from '../../shared/engine/deps.ts';
import { acceptModuleResult } from '../../shared/engine/entry/accept-result.ts';
import { cancelRun } from '../../shared/engine/entry/cancel-run.ts';
import { observeJobEvent, observeRun } from '../../shared/engine/entry/observe-run.ts';
import { accepted, failed, invalid, unavailable, type Outcome } from '../../shared/engine/entry/outcome.ts';
import { resumeRun } from '../../shared/engine/entry/resume-run.ts';
import { startRun } from '../../shared/engine/entry/start-run.ts';
import { startCreatedRun } from '../../shared/engine/entry/start-created.ts';
import { apiErrorKind, apiMessage } from '../../shared/kube/errors.ts';
import type { Request } from './inputs.ts';

function route(deps: EngineDeps, req: Request): Promise<Outcome> {
  switch (req.kind) {
    case 'run':
      return startRun(deps, req.body);
    case 'result':
      return acceptModuleResult(deps, req.body);
    case 'job':
      return observeJobEvent(deps, req);
    case 'resume':
      return resumeRun(deps, req);
    case 'cancel':
      return cancelRun(deps, req.target);
    // The decision applies what the run's annotations request (shared/core/apply-requests.ts).
    case 'run-requests':
      return observeRun(deps, req.runname);
    case 'run-start':
      return startCreatedRun(deps, req.runname);
    case 'ignored':
      return Promise.resolve(accepted({ ignored: req.reason }));
    case 'invalid':
      return Promise.resolve(invalid(req.reason));
  }
}

function logFields(req: Request): Record<string, string> {
  if (req.kind === 'run') return { iuid: req.body.iuid };
  if (req.kind === 'result') return { run: req.body.runname, module: req.body.modulename };
  if (req.kind === 'job') return { run: req.runname, job: req.job, change: req.change };
  if (req.kind === 'resume') return { run: req.target.runname ?? '', iuid: req.target.iuid ?? '' };
  if (req.kind === 'cancel')
    return req.target.runname === undefined ? { iuid: req.target.iuid ?? '' } : { run: req.target.runname };
  if (req.kind === 'run-requests' || req.kind === 'run-start') return { run: req.runname };
  return {};
}

/**
 * What a request the engine could not finish comes to: unavailable (503, retry)
 * when a retry can fix it (the Kubernetes API unavailable or overloaded, a
 * conflict that kept coming back), failed (500) otherwise. An outage is
 * expected trouble: logged as a warning, not as an error.
 */
export function failureOutcome(error: unknown): Outcome {
  const kind = apiErrorKind(error);
  const reason = apiMessage(error);
  return kind === 'transient' || kind === 'conflict'
    ? unavailable(`Kubernetes API unavailable, retry: ${reason}`)
    : failed(reason);
}

/** The run a request of progress names, when it names one by name. */
function runNamed(req: Request): string | undefined {
  if (req.kind === 'result') return req.body.runname;
  if (req.kind === 'job' || req.kind === 'run-requests') return req.runname;
  if (req.kind === 'cancel' || req.kind === 'resume') return req.target.runname;
  return undefined;
}

/**
 * A request about a run this process is still starting after its reply waits
 * for that start: in one process, facts come in the order they happened.
 */
async function afterStart(deps: EngineDeps, req: Request): Promise<void> {
  const name = runNamed(req);
  const start = name === undefined ? undefined : deps.starts.inFlight(name);
  if (start) await start.catch(() => undefined);
}

export async function handleRequest(deps: EngineDeps, req: Request, eventId: string | undefined): Promise<Outcome> {
  const log: Logger = deps.log.child({ eventId, request: req.kind, ...logFields(req) });
  const scoped = { ...deps, log };
  try {
    await afterStart(deps, req);
    const outcome = await route(scoped, req);
    log[outcome.kind === 'accepted' ? 'info' : 'warn']({ outcome }, 'handled');
    return outcome;
  } catch (error) {
    const outcome = failureOutcome(error);
    log[outcome.kind === 'unavailable' ? 'warn' : 'error'](
      { err: error, kind: apiErrorKind(error), outcome },
      'request failed',
    );
    return outcome;
  }
}
