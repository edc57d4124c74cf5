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

/** Why a Job of a step that started has no pod, as Cascade's clean-up decides (shared/core/cleanup.ts). */
export function goneReason(job: StepJob, runPhase: string | undefined): string {
  if (job.earlier)
    return `attempt ${job.attempt} ended ${job.phase}: Cascade deletes an earlier attempt's Job when the step is retried or resumed`;
  if (job.phase === 'Succeeded') return "Cascade deletes a succeeded step's Job, and its pods, when the step ends";
  if (runPhase === 'Cancelled') return 'Cascade deletes the Jobs of a cancelled run';
  return `the step is ${job.phase}, and its Job has no pod now`;
}
