// Helpers of decide's unit tests: a run of three modules part way through, and a decision in short.
import { decide } from '../decide.ts';
import type { CascadeRunStatus } from '../../api/cascade-run.ts';
import type { Action, Decision } from '../types.ts';
import { input, run } from './fixtures.ts';

export const ABC = ['a', 'b', 'c'];
export const T0 = '2026-11-29T11:00:00.000Z';

export function running(step: number, extra: Partial<CascadeRunStatus> = {}): CascadeRunStatus {
  const first = decide(input(run(ABC), []));
  const status = structuredClone(first.status);
  for (const rec of status.modules ?? []) {
    if (rec.step < step) Object.assign(rec, { phase: 'Succeeded', startTime: T0, completionTime: T0 });
    if (rec.step === step) Object.assign(rec, { phase: 'Running', startTime: T0 });
  }
  return { ...status, startTime: T0, currentStep: step, currentModule: ABC[step], ...extra };
}

function actionText(a: Action): string {
  if (a.type === 'FinishRun' || a.type === 'SendRunEndEvent')
    return `${a.type === 'FinishRun' ? 'Finish' : 'Send'}:${a.phase}`;
  if (a.type === 'TakeResumeSlot') return `TakeResumeSlot:${a.resumes}`;
  if (a.type === 'DeleteRunJobs') return a.keep ? `DeleteRunJobs:keep${a.keep.step}` : 'DeleteRunJobs';
  return `${a.type}:${a.step}`;
}

export function summary(d: Decision) {
  return {
    phase: d.status.phase,
    modules: d.status.modules?.map((m) => m.phase).join(','),
    reason: d.status.conditions?.find((c) => c.type === 'Succeeded')?.reason,
    actions: d.actions.map(actionText).join(' '),
    verdict: d.verdict,
    changed: d.changed,
  };
}
