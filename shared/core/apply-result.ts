// A module's reported result: which step it belongs to, and what it changes. Pure.
import { isTerminalPhase, type ModuleRecord } from '../api/cascade-run.ts';
import { completeStep, failStep, isTerminal, jobOf, type Draft } from './draft.ts';
import { resultMeaning } from './result-meaning.ts';
import type { Fact } from './types.ts';

type Result = Extract<Fact, { kind: 'ModuleResult' }>;

function isActive(d: Draft, rec: ModuleRecord): boolean {
  if (isTerminal(d)) return false;
  return rec.phase === 'Running' || (rec.phase === 'Pending' && jobOf(d, rec.step) !== undefined);
}

function isFinished(rec: ModuleRecord): boolean {
  return isTerminalPhase(rec.phase);
}

function note(d: Draft, rec: ModuleRecord, fact: Result): void {
  rec.result = fact.moduleresult;
  d.status.result = [...(d.status.result ?? []), `${fact.modulename}: ${fact.moduleresult}\n`];
}

/** A result already ended this step, or says again what the step holds. */
function isRepeat(rec: ModuleRecord, fact: Result): boolean {
  if (rec.result === undefined) return false;
  return rec.result === fact.moduleresult || resultMeaning(rec.result) !== 'info';
}

function applyToActive(d: Draft, rec: ModuleRecord, fact: Result): void {
  if (isRepeat(rec, fact)) {
    d.verdict = 'duplicate';
    return;
  }
  note(d, rec, fact);
  d.verdict = 'applied';
  const meaning = resultMeaning(fact.moduleresult);
  if (meaning === 'success') completeStep(d, rec.step, undefined);
  if (meaning === 'failure') failStep(d, rec.step, 'ModuleResultFailed', `module reported "${fact.moduleresult}"`);
}

export function applyResult(d: Draft, fact: Result): void {
  const steps = d.records.filter((r) => r.name === fact.modulename);
  if (steps.length === 0) {
    d.verdict = 'unknown-module';
    return;
  }
  const active = steps.find((r) => isActive(d, r));
  if (active) return applyToActive(d, active, fact);
  const late = steps.find((r) => isFinished(r) && !isRepeat(r, fact));
  if (late) {
    note(d, late, fact);
    d.verdict = 'recorded';
    return;
  }
  d.verdict = steps.some(isFinished) ? 'duplicate' : 'not-started';
}
