// The janitor, run by a Kubernetes CronJob (same image as the function):
// one sweep of POD_NAMESPACE, then ONE JSON summary line on stdout (logs go
// to stderr) and the exit code: 1 when the sweep could not do its work
// (invalid configuration, runs or Jobs not listable, more than half of the
// runs it had to handle failed), else 0. See shared/engine/janitor/sweep.ts.
import { parseConfig } from '../../shared/config.ts';
import { sweep } from '../../shared/engine/janitor/sweep.ts';
import { emptySummary, exitCode, type SweepSummary } from '../../shared/engine/janitor/sweep-summary.ts';
import { janitorDeps, janitorLogger } from './wiring.ts';

async function run(): Promise<SweepSummary> {
  const parsed = parseConfig(process.env);
  if (!parsed.ok) return { ...emptySummary(), errors: 1, aborted: `configuration: ${parsed.reason}` };
  const log = janitorLogger(parsed.value);
  for (const warning of parsed.value.warnings) log.warn(warning);
  try {
    return await sweep(janitorDeps(parsed.value, log), new Date());
  } catch (error) {
    // Only a fault outside the sweep's own accounting (e.g. no kubeconfig) gets here.
    log.error({ err: error }, 'janitor failed');
    return { ...emptySummary(), errors: 1, aborted: error instanceof Error ? error.message : String(error) };
  }
}

const summary = await run();
process.stdout.write(`${JSON.stringify({ janitor: 'sweep', ...summary })}\n`, () => process.exit(exitCode(summary)));
