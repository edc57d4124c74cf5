// The pure core: from the CascadeRun as stored, the Jobs seen for it, the new
// fact if any, and `now`, decide the next status and the actions that make
// the world match it. Every entry point, the function and the janitor alike,
// calls this and nothing else to decide. See docs/architecture.md#decide-then-act.
import { applyRequests } from './apply-requests.ts';
import { applyResult } from './apply-result.ts';
import { cleanup } from './cleanup.ts';
import { enforceRunTimeout, enforceStall } from './deadlines.ts';
import { failRun, isTerminal, newDraft, type Draft } from './draft.ts';
import { endActions } from './run-end.ts';
import { applyResume, resumeActions } from './resume.ts';
import { adoptLaterJobs, advance } from './progress.ts';
import { holdQueued } from './hold-queued.ts';
import type { DecideInput, Decision } from './types.ts';

export function decide(input: DecideInput): Decision {
  const before = JSON.stringify(input.run.status ?? {});
  const d = newDraft(input, before);
  if (d.records.length === 0 && !isTerminal(d))
    failRun(d, 'InvalidSpec', 'spec.cascademodules is empty: the run has no scenario snapshot');
  if (input.fact.kind === 'Resume') applyResume(d, input.fact);
  // A queued run can be cancelled while it waits: requests come before the hold.
  const queued = input.run.status?.phase === 'Queued';
  if (queued) applyRequests(d);
  if (!isTerminal(d) && holdQueued(d)) return decision(d, before);
  adoptLaterJobs(d);
  if (input.fact.kind === 'ModuleResult') applyResult(d, input.fact);
  enforceRunTimeout(d);
  if (!queued) applyRequests(d);
  advance(d);
  enforceStall(d);
  cleanup(d);
  d.actions.push(...resumeActions(d.status), ...endActions(d.status, input.settings.sink));
  return decision(d, before);
}

function decision(d: Draft, before: string): Decision {
  return {
    status: d.status,
    changed: JSON.stringify(d.status) !== before,
    actions: d.actions,
    transitions: d.transitions,
    verdict: d.verdict,
    ignoredJobs: d.ignored,
    unseenJob: d.unseenJob,
  };
}
