// Requests to control a run, applied by decide(). One is the request the event
// brings: a cancel CloudEvent or plain body (decide() applies a resume one
// first). The others are pending in the run's annotations (run-requests.ts).
// Each is recorded handled in the same status write, so it is applied once,
// whoever sees it first: the CascadeRun's event, any other event of the run,
// or the janitor. Pure.
import { applyCancel } from './cancel.ts';
import type { Draft } from './draft.ts';
import { pendingRequests } from './run-requests.ts';
import { applyResume } from './resume.ts';
import type { Fact, Verdict } from './types.ts';

function apply(d: Draft, fact: Fact): Verdict | undefined {
  if (fact.kind === 'Cancel') return applyCancel(d);
  return undefined;
}

/** A request pending in an annotation: applied without changing the verdict of the fact the event brought. */
function applyPending(d: Draft, fact: Fact): void {
  const verdict = d.verdict;
  if (fact.kind === 'Resume') applyResume(d, fact);
  else apply(d, fact);
  d.verdict = verdict;
}

export function applyRequests(d: Draft): void {
  const verdict = apply(d, d.input.fact);
  if (verdict) d.verdict = verdict;
  for (const { request, value } of pendingRequests({ metadata: d.input.run.metadata, status: d.status })) {
    applyPending(d, request.fact(value));
    d.status[request.handled] = value;
  }
}
