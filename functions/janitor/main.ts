// The janitor, run by a Kubernetes CronJob (same image as the function). It
// makes one sweep of POD_NAMESPACE, then writes ONE JSON summary line on
// stdout (logs go to stderr) and exits. The exit code is 1 when the sweep
// could not do its work, else 0. It could not when the configuration is
// invalid, when runs or Jobs are not listable, or when more than half of the
// runs it had to handle failed. See shared/engine/janitor/sweep.ts.
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
