// `logs`: each line of a module's pod log, prefixed with its module. Pure.
import type { Palette } from '../format/colour.ts';
import type { ModuleRecordView } from './run-object.ts';

export function prefixLines(module: string, text: string, p: Palette): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => `${p.dim(`[${module}]`)} ${line}`);
}

/** A line carried across chunks of a followed stream: complete lines out, the rest kept. */
export function splitChunk(carry: string, chunk: string): { lines: string[]; carry: string } {
  const parts = (carry + chunk).split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts, carry: rest };
}

/** One Job of a step: the current attempt's, or an earlier one's (from `attempts`). */
export interface StepJob {
  jobName: string;
  attempt: number;
  phase: string;
  earlier: boolean;
}

interface AttemptView {
  attempt?: number;
  jobName?: string;
  phase?: string;
}

/** The Jobs of a step, earlier attempts first. */
export function jobsOfStep(record: ModuleRecordView): StepJob[] {
  const earlier = ((record.attempts ?? []) as AttemptView[])
    .filter((a) => a.jobName && a.jobName !== record.jobName)
    .map((a, i) => ({ jobName: a.jobName!, attempt: a.attempt ?? i + 1, phase: a.phase ?? 'Failed', earlier: true }));
  return [
    ...earlier,
    { jobName: record.jobName, attempt: record.attempt ?? earlier.length + 1, phase: record.phase, earlier: false },
  ];
}

/**
 * Why a Job of a step that started has no pod. A run keeps its Jobs until it
 * ends, then deletes them; a failed run keeps its failed step's (shared/core/cleanup.ts).
 */
export function goneReason(job: StepJob, runPhase: string | undefined): string {
  const keptByFailedRun = runPhase === 'Failed' && !job.earlier && job.phase === 'Failed';
  if (runPhase && ENDED.has(runPhase) && !keptByFailedRun)
    return `the run ended ${runPhase}: Cascade deletes a run's Jobs, and their pods, when it ends`;
  if (job.earlier) return `attempt ${job.attempt} ended ${job.phase}, and its Job has no pod now`;
  return `the step is ${job.phase}, and its Job has no pod now`;
}

const ENDED = new Set(['Succeeded', 'Failed', 'Cancelled']);
