// One Kubernetes Event per decision, not per transition. A hand-off (a module
// ended, the next one started) is one moment in the run's life, and so is a
// run's end (its last module ended, the run ended). Each is written with one
// status write and gets one Event. Its reason is the decision's weightiest
// transition (RANK): ModuleStarted at a hand-off, RunSucceeded at the end,
// ModuleRetrying after a failure that is retried, RunResumed for a resume that
// starts its module. Its message tells every transition in order. It is a
// Warning when any transition is one.
import type { Transition, TransitionKind } from './types.ts';

export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: TransitionKind;
  message: string;
}

const WARNINGS: ReadonlySet<TransitionKind> = new Set(['ModuleFailed', 'RunFailed', 'ModuleRetrying']);

/** Weightiest first: the run's own transitions, then what happened to a module, a plain success last. */
const RANK: readonly TransitionKind[] = [
  'RunFailed',
  'RunCancelled',
  'RunSucceeded',
  'RunResumed',
  'ModuleRetrying',
  'ModuleFailed',
  'ModuleCancelled',
  'ModuleStarted',
  'ModuleSucceeded',
];

/** A transition told on its own: a module's failure names the module (the Job's reason does not). */
function told(t: Transition): string {
  return t.kind === 'ModuleFailed' || t.kind === 'ModuleCancelled'
    ? `module ${t.module} (step ${(t.step ?? 0) + 1}): ${t.message}`
    : t.message;
}

/** The Event of one decision's transitions, or none when it has none. */
export function eventOfDecision(transitions: readonly Transition[]): EventNote | undefined {
  const reason = RANK.find((kind) => transitions.some((t) => t.kind === kind));
  if (!reason) return undefined;
  return {
    type: transitions.some((t) => WARNINGS.has(t.kind)) ? 'Warning' : 'Normal',
    reason,
    message: transitions.map(told).join('; '),
  };
}
