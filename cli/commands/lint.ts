// `lint FILE`: the scenario checked as the function checks it, then each
// module's Job dry-run on the API server (nothing is created); every error
// names its module and field. Exits 1 when there is any.
import { readFileSync } from 'node:fs';
import { BatchV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { CliError } from '../io.ts';
import type { Connection } from '../kube/connect.ts';
import { lintJobs, type LintJob } from '../lint/jobs.ts';
import { dryRunErrors, formatLintError, scenarioInput, schemaErrors, type LintError } from '../lint/report.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';

function readScenario(file: string): { input: unknown; name?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const input = scenarioInput(text);
  if (!input.ok) throw new CliError(`${file}: ${input.message}`);
  return input;
}

/** The errors of the API server's dry run of each Job (a 400 or 422 refusal); other failures are thrown. */
async function dryRun(kc: KubeConfig, namespace: string, jobs: LintJob[]): Promise<LintError[]> {
  const batch = kc.makeApiClient(BatchV1Api);
  const refused: LintError[] = [];
  for (const { module, job } of jobs) {
    try {
      await batch.createNamespacedJob({ namespace, body: job, dryRun: 'All' });
    } catch (error) {
      const e = error as { code?: number; body?: unknown };
      if (e.code !== 422 && e.code !== 400) throw error;
      const status = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Parameters<typeof dryRunErrors>[1];
      refused.push(...dryRunErrors(module.modulename, status, job.spec?.template.spec?.containers[0]?.env ?? [], module.configuration));
    }
  }
  return refused;
}

async function lint(file: string, scenario: string | undefined, { kc, namespace }: Connection): Promise<{ errors: LintError[]; jobs: number }> {
  const { input, name } = readScenario(file);
  const { errors } = schemaErrors(input);
  const jobs = lintJobs((input as { cascademodules?: unknown } | null)?.cascademodules, namespace, scenario ?? name ?? 'scenario');
  return { errors: [...errors, ...(await dryRun(kc, namespace, jobs))], jobs: jobs.length };
}

export function registerLint(program: Command, ctx: Ctx): void {
  program.command('lint').argument('<file>', 'a scenario file ({"cascademodules": [...]}) or a CascadeAutoOperator manifest, JSON or YAML')
    .description('validate a scenario as the function would, then dry-run each module\'s Job on the API server')
    .option('--scenario <name>', 'the scenario\'s name in the Job names (default: the CascadeAutoOperator\'s, else "scenario")')
    .action(act(ctx, async (file: string, opts: { scenario?: string }, cmd: Command) => {
      const conn = connection(cmd);
      const { errors, jobs } = await lint(file, opts.scenario, conn);
      for (const e of errors) ctx.io.err.write(`${file}: ${formatLintError(e)}\n`);
      if (errors.length > 0) return EXIT_ERROR;
      ctx.io.out.write(`${file}: ${jobs} module(s) valid (schema, and each Job dry-run in namespace ${conn.namespace})\n`);
      return 0;
    }));
}
