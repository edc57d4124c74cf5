// A module's reported result: which step it belongs to, and what it changes. Pure.
import { isTerminalPhase, type ModuleRecord } from '../api/cascade-run.ts';
import { completeStep, isTerminal, jobOf, type Draft } from './draft.ts';
import { failOrRetry } from './step-retry.ts';
import type { Fact } from './types.ts';

type Result = Extract<Fact, { kind: 'ModuleResult' }>;

// Which `moduleresult` values end a step. Case and surrounding spaces do not
// matter. Any other value is kept in status as information and the step waits
// for its Job to finish.
const SUCCESS_RESULTS: readonly string[] = [
  'success',
  'succeeded',
  'successful',
  'ok',
  'done',
  'complete',
  'completed',
];
const FAILURE_RESULTS: readonly string[] = ['fail', 'failed', 'failure', 'error'];

function resultMeaning(moduleresult: string): 'success' | 'failure' | 'info' {
  const word = moduleresult.trim().toLowerCase();
  if (SUCCESS_RESULTS.includes(word)) return 'success';
  if (FAILURE_RESULTS.includes(word)) return 'failure';
  return 'info';
}

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
  if (meaning === 'failure') failOrRetry(d, rec.step, 'ModuleResultFailed', `module reported "${fact.moduleresult}"`);
}

/**
 * The result that ended the step's last attempt, delivered again before the
 * next attempt's Job runs (during a retry's backoff, or after a resume): a
 * duplicate. Results carry no attempt: once the new Job runs, a result is its.
 */
function isEchoOfLastAttempt(d: Draft, rec: ModuleRecord, fact: Result): boolean {
  return !isActive(d, rec) && rec.phase === 'Pending' && rec.attempts?.at(-1)?.result === fact.moduleresult;
}

export function applyResult(d: Draft, fact: Result): void {
  const steps = d.records.filter((r) => r.name === fact.modulename);
  if (steps.length === 0) {
    d.verdict = 'unknown-module';
    return;
  }
  if (steps.some((r) => isEchoOfLastAttempt(d, r, fact))) {
    d.verdict = 'duplicate';
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
