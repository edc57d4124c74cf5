// `lint FILE`: the scenario is checked as the function checks it. Then the
// CascadeAutoOperator and each module's Job are dry-run on the API server,
// with kubectl's strict field validation; nothing is created. The operator is
// the file's, or one made around a bare scenario. Every error names its
// module and field. Exits 1 when there is any.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP, VERSION } from '../../shared/api/group.ts';
import type { Command } from 'commander';
import { act, connection, type Ctx } from '../command-context.ts';
import type { Kube } from '../kube/connect.ts';
import { lintJobs, type LintJob } from '../lint/jobs.ts';
import {
  dryRunErrors,
  formatLintError,
  manifestErrors,
  mergeErrors,
  scenarioInputs,
  schemaErrors,
  type LintError,
  type ScenarioDoc,
} from '../lint/report.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';
import { COMMAND_LINES } from './summaries.ts';

/** A file to lint: its label in what lint prints, and its text (or why it could not be read). */
interface Source {
  label: string;
  text?: string;
  error?: string;
}

const LINTED = /\.(ya?ml|json)$/;

function read(label: string, path: string | number): Source {
  try {
    return { label, text: readFileSync(path, 'utf8') };
  } catch (error) {
    return { label, error: `cannot read ${label}: ${(error as Error).message}` };
  }
}

/** Each argument: `-` is stdin, a directory its .yaml, .yml and .json files (in name order), else the file. */
export function sourcesOf(args: readonly string[]): Source[] {
  return args.flatMap((arg) => {
    if (arg === '-') return [read('-', 0)];
    let isDir = false;
    try {
      isDir = statSync(arg).isDirectory();
    } catch {
      /* read() says why */
    }
    if (!isDir) return [read(arg, arg)];
    return readdirSync(arg)
      .filter((f) => LINTED.test(f))
      .sort()
      .map((f) => read(join(arg, f), join(arg, f)));
  });
}

/** The errors of the API server's dry run of each Job (a 400 or 422 refusal); other failures are thrown. */
async function dryRun(kube: Kube, jobs: LintJob[]): Promise<LintError[]> {
  const refused: LintError[] = [];
  for (const { module, job } of jobs) {
    try {
      await kube.rest('POST', `/apis/batch/v1/namespaces/${kube.namespace}/jobs`, {
        body: job,
        query: { dryRun: 'All' },
        discard: true,
      });
    } catch (error) {
      const e = error as { code?: number; body?: unknown };
      if (e.code !== 422 && e.code !== 400) throw error;
      const status = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as Parameters<typeof dryRunErrors>[1];
      refused.push(
        ...dryRunErrors(
          module.modulename,
          status,
          job.spec?.template.spec?.containers[0]?.env ?? [],
          module.configuration,
        ),
      );
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
async function dryRunOperator(kube: Kube, manifest: Record<string, unknown>, input: unknown): Promise<LintError[]> {
  const { namespace } = kube;
  const operators = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/cascadeautooperators`;
  const metadata: Record<string, unknown> = {
    ...(manifest.metadata as Record<string, unknown> | undefined),
    namespace,
  };
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  let existing: { metadata?: { resourceVersion?: string } } | undefined;
  if (name) {
    existing = await kube.rest<NonNullable<typeof existing>>('GET', `${operators}/${name}`).then(
      (o) => o,
      (e: { code?: number }) => {
        if (e.code === 404) return undefined;
        throw e;
      },
    );
  }
  try {
    const query = { dryRun: 'All', fieldValidation: 'Strict' };
    if (existing)
      await kube.rest('PUT', `${operators}/${name}`, {
        query,
        discard: true,
        body: { ...manifest, metadata: { ...metadata, resourceVersion: existing.metadata?.resourceVersion } },
      });
    else await kube.rest('POST', operators, { query, discard: true, body: { ...manifest, metadata } });
    return [];
  } catch (error) {
    const status = refusal(error);
    if (!status) throw error;
    return manifestErrors(input, status);
  }
}

/** A bare scenario file, as the CascadeAutoOperator that would hold it. */
const operatorOf = (input: unknown, name: string): Record<string, unknown> => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'CascadeAutoOperator',
  metadata: { name },
  spec: { scenarioconfig: input },
});

/** One document: the schema's errors, then (online) those of the server's dry runs, each field once. */
async function lintDoc(
  doc: ScenarioDoc,
  scenario: string | undefined,
  conn: Kube | undefined,
): Promise<{ errors: LintError[]; jobs: number }> {
  const { input, name, manifest } = doc;
  const { errors } = schemaErrors(input);
  const scenarioName = scenario ?? name ?? 'scenario';
  const jobs = lintJobs(
    (input as { cascademodules?: unknown } | null)?.cascademodules,
    conn?.namespace ?? 'default',
    scenarioName,
  );
  if (!conn) return { errors, jobs: jobs.length };
  const server = [
    ...(await dryRunOperator(conn, manifest ?? operatorOf(input, scenarioName), input)),
    ...(await dryRun(conn, jobs)),
  ];
  return { errors: mergeErrors(errors, server), jobs: jobs.length };
}

/** A source's documents, or why there are none: it could not be read, or it is not JSON or YAML. */
function parse(source: Source): ReturnType<typeof scenarioInputs> {
  if (source.text === undefined) return { ok: false, message: source.error ?? `cannot read ${source.label}` };
  const parsed = scenarioInputs(source.text);
  return parsed.ok ? parsed : { ok: false, message: `${source.label}: ${parsed.message}` };
}

interface LintOptions {
  scenario?: string;
  offline?: boolean;
}

export function registerLint(program: Command, ctx: Ctx): void {
  program
    .command('lint')
    .argument(
      '<file...>',
      'scenario files ({"cascademodules": [...]}) or CascadeAutoOperator manifests, JSON or YAML (several documents each); a directory\'s .yaml, .yml and .json files; - for stdin',
    )
    .description(COMMAND_LINES.lint.description)
    .option(
      '--scenario <name>',
      'the scenario\'s name in the Job names (default: the CascadeAutoOperator\'s, else "scenario")',
    )
    .option('--offline', 'the schema only: no API server is asked')
    .action(
      act(ctx, async (files: string[], opts: LintOptions, cmd: Command) => {
        const conn = opts.offline ? undefined : connection(cmd);
        const checked = conn
          ? `schema, and the CascadeAutoOperator and each Job dry-run in namespace ${conn.namespace}`
          : 'schema only, offline';
        let failed = false;
        for (const source of sourcesOf(files)) {
          const parsed = parse(source);
          if (!parsed.ok) {
            ctx.io.err.write(`error: ${parsed.message}\n`);
            failed = true;
            continue;
          }
          for (const [i, doc] of parsed.docs.entries()) {
            const label = parsed.docs.length > 1 ? `${source.label}#${i + 1}` : source.label;
            const { errors, jobs } = await lintDoc(doc, opts.scenario, conn);
            for (const e of errors) ctx.io.err.write(`${label}: ${formatLintError(e)}\n`);
            if (errors.length === 0) ctx.io.out.write(`${label}: ${jobs} module(s) valid (${checked})\n`);
            failed ||= errors.length > 0;
          }
        }
        return failed ? EXIT_ERROR : 0;
      }),
    );
}
