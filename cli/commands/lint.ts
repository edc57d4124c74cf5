// `lint FILE`: the scenario checked as the function checks it, then the
// CascadeAutoOperator (the file's, or one made around a bare scenario) and
// each module's Job dry-run on the API server with kubectl's strict field
// validation (nothing is created); every error names its module and field.
// Exits 1 when there is any.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from '../kube/client.ts';
import { GROUP, VERSION } from '../../shared/api/group.ts';
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import { CliError } from '../io.ts';
import type { Connection } from '../kube/connect.ts';
import { lintJobs, type LintJob } from '../lint/jobs.ts';
import { dryRunErrors, formatLintError, manifestErrors, mergeErrors, scenarioInput, schemaErrors, type LintError } from '../lint/report.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';

function readScenario(file: string): { input: unknown; name?: string; manifest?: Record<string, unknown> } {
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
  const { BatchV1Api } = await clientNode();
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

const refusal = (error: unknown): Parameters<typeof manifestErrors>[1] | undefined => {
  const e = error as { code?: number; body?: unknown };
  if (e.code !== 422 && e.code !== 400) return undefined;
  return (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Parameters<typeof manifestErrors>[1];
};

/**
 * The API server's dry run of the CascadeAutoOperator, as `kubectl apply
 * --dry-run=server` does it: created when none of its name exists, else
 * replaced; unknown fields refused (fieldValidation Strict).
 */
async function dryRunOperator(kc: KubeConfig, namespace: string, manifest: Record<string, unknown>, input: unknown): Promise<LintError[]> {
  const { CustomObjectsApi } = await clientNode();
  const api = kc.makeApiClient(CustomObjectsApi);
  const at = { group: GROUP, version: VERSION, plural: 'cascadeautooperators', namespace };
  const metadata: Record<string, unknown> = { ...(manifest.metadata as Record<string, unknown> | undefined), namespace };
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  let existing: { metadata?: { resourceVersion?: string } } | undefined;
  if (name) {
    existing = await api.getNamespacedCustomObject({ ...at, name }).then((o) => o as typeof existing, (e: { code?: number }) => {
      if (e.code === 404) return undefined;
      throw e;
    });
  }
  try {
    const options = { dryRun: 'All', fieldValidation: 'Strict' };
    if (existing) await api.replaceNamespacedCustomObject({ ...at, name, ...options, body: { ...manifest, metadata: { ...metadata, resourceVersion: existing.metadata?.resourceVersion } } });
    else await api.createNamespacedCustomObject({ ...at, ...options, body: { ...manifest, metadata } });
    return [];
  } catch (error) {
    const status = refusal(error);
    if (!status) throw error;
    return manifestErrors(input, status);
  }
}

/** A bare scenario file, as the CascadeAutoOperator that would hold it. */
const operatorOf = (input: unknown, name: string): Record<string, unknown> => ({
  apiVersion: `${GROUP}/${VERSION}`, kind: 'CascadeAutoOperator', metadata: { name }, spec: { scenarioconfig: input },
});

async function lint(file: string, scenario: string | undefined, { kc, namespace }: Connection): Promise<{ errors: LintError[]; jobs: number }> {
  const { input, name, manifest } = readScenario(file);
  const { errors } = schemaErrors(input);
  const scenarioName = scenario ?? name ?? 'scenario';
  const jobs = lintJobs((input as { cascademodules?: unknown } | null)?.cascademodules, namespace, scenarioName);
  const server = [
    ...(await dryRunOperator(kc, namespace, manifest ?? operatorOf(input, scenarioName), input)),
    ...(await dryRun(kc, namespace, jobs)),
  ];
  return { errors: mergeErrors(errors, server), jobs: jobs.length };
}

export function registerLint(program: Command, ctx: Ctx): void {
  program.command('lint').argument('<file>', 'a scenario file ({"cascademodules": [...]}) or a CascadeAutoOperator manifest, JSON or YAML')
    .description('validate a scenario as the function would, then dry-run its CascadeAutoOperator and each module\'s Job on the API server')
    .option('--scenario <name>', 'the scenario\'s name in the Job names (default: the CascadeAutoOperator\'s, else "scenario")')
    .action(act(ctx, async (file: string, opts: { scenario?: string }, cmd: Command) => {
      const conn = await connection(cmd);
      const { errors, jobs } = await lint(file, opts.scenario, conn);
      for (const e of errors) ctx.io.err.write(`${file}: ${formatLintError(e)}\n`);
      if (errors.length > 0) return EXIT_ERROR;
      ctx.io.out.write(`${file}: ${jobs} module(s) valid (schema, and the CascadeAutoOperator and each Job dry-run in namespace ${conn.namespace})\n`);
      return 0;
    }));
}
