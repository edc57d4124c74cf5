// A resume request (CloudEvent, plain body, or the kubectl way's annotation):
// the core decides (shared/core/resume.ts), the run moves through the same
// load/decide/act/write loop as every other fact.
import type { RunTarget } from '../../api/events.ts';
import { quote } from '../../api/reason.ts';
import type { Fact } from '../../core/types.ts';
import type { EngineDeps } from '../deps.ts';
import { findRun } from './find-run.ts';
import { accepted, invalid, type Outcome } from './outcome.ts';
import { reconcileRun } from '../run/reconcile.ts';

export interface ResumeRequest {
  target: RunTarget;
  requestId?: string | undefined;
  bodyDigest?: string | undefined;
}

function unknown(target: RunTarget): Outcome {
  return invalid(
    target.runname !== undefined
      ? `unknown run ${quote(target.runname)}`
      : `no run of iuid ${quote(target.iuid ?? '')}`,
  );
}

/** Resumes the run by name with `fact` (also the kubectl way's entry point): verdict resumed, not-resumable or duplicate. */
export async function resumeNamedRun(
  deps: EngineDeps,
  name: string,
  fact: Extract<Fact, { kind: 'Resume' }>,
): Promise<Outcome> {
  const result = await reconcileRun(deps, name, fact);
  if (result.kind === 'missing') return unknown({ runname: name });
  return accepted({ run: name, phase: result.decision.status.phase, verdict: result.decision.verdict });
}

export async function resumeRun(deps: EngineDeps, req: ResumeRequest): Promise<Outcome> {
  const name = await findRun(deps, req.target);
  if (name === undefined) return unknown(req.target);
  return resumeNamedRun(deps, name, { kind: 'Resume', requestId: req.requestId, bodyDigest: req.bodyDigest });
}
