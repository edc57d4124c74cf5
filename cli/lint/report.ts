// `lint`: a scenario file checked as the function checks it (the valibot
// schema of shared/api/scenario.ts), then each module's Job dry-run by the API
// server; every error names its module and the module's field. Pure.
import { load, loadAll } from 'js-yaml';
import * as v from 'valibot';
import { describeIssue } from '../../shared/api/parse.ts';
import { ScenarioSchema, type Scenario } from '../../shared/api/scenario.ts';

export interface LintError {
  /** The module's name, or its place (`cascademodules[2]`) when it has none; undefined for the file as a whole. */
  module?: string;
  field: string;
  message: string;
}

export function formatLintError(e: LintError): string {
  return `${e.module === undefined ? 'scenario' : `module ${e.module}`}: ${e.field}: ${e.message}`;
}

/** One document's scenario, and the CascadeAutoOperator manifest it came in (kept whole) with its name. */
export interface ScenarioDoc {
  input: unknown;
  name?: string;
  manifest?: Record<string, unknown>;
}

const notYaml = (error: unknown) => ({
  ok: false as const,
  message: `not JSON or YAML: ${(error as Error).message.split('\n')[0]}`,
});

/** The scenario of a file: a scenario (`{cascademodules: [...]}`) or a CascadeAutoOperator manifest (also kept whole), in JSON or YAML. */
export function scenarioInput(text: string): ({ ok: true } & ScenarioDoc) | { ok: false; message: string } {
  try {
    return { ok: true, ...scenarioOf(load(text)) };
  } catch (error) {
    return notYaml(error);
  }
}

/** Every document of a file (YAML's `---` separates them), empty ones left out. */
export function scenarioInputs(text: string): { ok: true; docs: ScenarioDoc[] } | { ok: false; message: string } {
  try {
    return {
      ok: true,
      docs: loadAll(text)
        .filter((doc) => doc !== null && doc !== undefined)
        .map(scenarioOf),
    };
  } catch (error) {
    return notYaml(error);
  }
}

function scenarioOf(doc: unknown): ScenarioDoc {
  const obj = doc as { kind?: unknown; metadata?: { name?: unknown }; spec?: { scenarioconfig?: unknown } } | null;
  if (obj && typeof obj === 'object' && obj.kind === 'CascadeAutoOperator') {
    const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : undefined;
    return { input: obj.spec?.scenarioconfig, manifest: obj as Record<string, unknown>, ...(name ? { name } : {}) };
  }
  return { input: doc };
}

function moduleLabel(input: unknown, index: number): string {
  const m = (input as { cascademodules?: { modulename?: unknown }[] } | null)?.cascademodules?.[index];
  return typeof m?.modulename === 'string' && m.modulename !== '' ? m.modulename : `cascademodules[${index}]`;
}

/** Every issue the function's schema finds, each under its module. */
export function schemaErrors(input: unknown): { scenario?: Scenario; errors: LintError[] } {
  const result = v.safeParse(ScenarioSchema, input);
  if (result.success) return { scenario: result.output, errors: [] };
  return {
    errors: result.issues.map((issue) => {
      const [first, second, ...rest] = issue.path ?? [];
      const line = describeIssue(issue);
      const message = line.slice(line.indexOf(': ') + 2);
      if (first?.key === 'cascademodules' && typeof second?.key === 'number') {
        const field = rest
          .map((p) => (typeof p.key === 'number' ? `[${p.key}]` : `.${String(p.key)}`))
          .join('')
          .replace(/^\./, '');
        return { module: moduleLabel(input, second.key), field: field || '(module)', message };
      }
      return { field: line.slice(0, line.indexOf(': ')), message };
    }),
  };
}

/** A Job field of the dry run's error, as the module's field it came from. */
export function moduleField(
  jobField: string,
  env: readonly { name: string }[],
  configuration: Record<string, string> = {},
): string {
  const envMatch = /^spec\.template\.spec\.containers\[0\]\.env\[(\d+)\]/.exec(jobField);
  const name = envMatch ? env[Number(envMatch[1])]?.name : undefined;
  if (name !== undefined && name in configuration) return `configuration.${name}`;
  if (jobField.startsWith('spec.template.')) return `template.${jobField.slice('spec.template.'.length)}`;
  if (jobField.startsWith('spec.')) return jobField.slice('spec.'.length);
  if (jobField.startsWith('metadata.')) return `modulename (the Job's ${jobField})`;
  return jobField || '(Job)';
}

interface StatusCause {
  field?: string;
  message?: string;
  reason?: string;
}
interface KubeStatus {
  message?: string;
  details?: { causes?: StatusCause[] };
}

/** The errors of a refused dry run (a Kubernetes Status), under `module`. */
export function dryRunErrors(
  module: string,
  status: KubeStatus,
  env: readonly { name: string }[],
  configuration?: Record<string, string>,
): LintError[] {
  const causes = status.details?.causes ?? [];
  if (causes.length === 0) return [{ module, field: '(Job)', message: status.message ?? 'refused by the API server' }];
  return causes.map((c) => ({
    module,
    field: moduleField(c.field ?? '', env, configuration),
    message: c.message ?? c.reason ?? 'invalid',
  }));
}

const SCENARIO_PATH = /^spec\.scenarioconfig\.cascademodules\[(\d+)\]\.?(.*)$/;

/** A field of the CascadeAutoOperator, as the module's field when it is in one. */
export function manifestField(input: unknown, field: string): { module?: string; field: string } {
  const m = SCENARIO_PATH.exec(field.replace(/^\./, ''));
  if (!m) return { field: field.replace(/^\./, '') || '(CascadeAutoOperator)' };
  return { module: moduleLabel(input, Number(m[1])), field: m[2] || '(module)' };
}

/**
 * The errors of the API server's dry run of the CascadeAutoOperator: each
 * cause of a 422, and each unknown or duplicate field that strict field
 * validation names in a 400's message.
 */
export function manifestErrors(input: unknown, status: KubeStatus): LintError[] {
  const causes = status.details?.causes ?? [];
  if (causes.length > 0)
    return causes.map((c) => ({ ...manifestField(input, c.field ?? ''), message: c.message ?? c.reason ?? 'invalid' }));
  const message = status.message ?? 'refused by the API server';
  const fields = [...message.matchAll(/(unknown|duplicate) field "([^"]+)"/g)];
  if (fields.length === 0) return [{ field: '(CascadeAutoOperator)', message }];
  return fields.map(([, kind, field]) => ({
    ...manifestField(input, field!),
    message: `${kind} field (the API server's strict field validation refuses it)`,
  }));
}

/** Errors of all checks, each field said once: the first check that names it (the schema, then the server's dry runs) keeps it. */
export function mergeErrors(schema: readonly LintError[], server: readonly LintError[]): LintError[] {
  const key = (e: LintError) => `${e.module ?? ''}\u0000${e.field}`;
  const named = new Set<string>();
  return [...schema, ...server].filter((e) => !named.has(key(e)) && Boolean(named.add(key(e))));
}
