// `lint`: a scenario file checked as the function checks it (the valibot
// schema of shared/api/scenario.ts), then each module's Job dry-run by the API
// server; every error names its module and the module's field. Pure.
import { load } from 'js-yaml';
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

/** The scenario of a file: a scenario (`{cascademodules: [...]}`) or a CascadeAutoOperator manifest, in JSON or YAML. */
export function scenarioInput(text: string): { ok: true; input: unknown; name?: string } | { ok: false; message: string } {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (error) {
    return { ok: false, message: `not JSON or YAML: ${(error as Error).message.split('\n')[0]}` };
  }
  const obj = doc as { kind?: unknown; metadata?: { name?: unknown }; spec?: { scenarioconfig?: unknown } } | null;
  if (obj && typeof obj === 'object' && obj.kind === 'CascadeAutoOperator') {
    const name = typeof obj.metadata?.name === 'string' ? obj.metadata.name : undefined;
    return { ok: true, input: obj.spec?.scenarioconfig, ...(name ? { name } : {}) };
  }
  return { ok: true, input: doc };
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
        const field = rest.map((p) => (typeof p.key === 'number' ? `[${p.key}]` : `.${String(p.key)}`)).join('').replace(/^\./, '');
        return { module: moduleLabel(input, second.key), field: field || '(module)', message };
      }
      return { field: line.slice(0, line.indexOf(': ')), message };
    }),
  };
}

/** A Job field of the dry run's error, as the module's field it came from. */
export function moduleField(jobField: string, env: readonly { name: string }[], configuration: Record<string, string> = {}): string {
  const envMatch = /^spec\.template\.spec\.containers\[0\]\.env\[(\d+)\]/.exec(jobField);
  const name = envMatch ? env[Number(envMatch[1])]?.name : undefined;
  if (name !== undefined && name in configuration) return `configuration.${name}`;
  if (jobField.startsWith('spec.template.')) return `template.${jobField.slice('spec.template.'.length)}`;
  if (jobField.startsWith('spec.')) return jobField.slice('spec.'.length);
  if (jobField.startsWith('metadata.')) return `modulename (the Job's ${jobField})`;
  return jobField || '(Job)';
}

interface StatusCause { field?: string; message?: string; reason?: string }
interface KubeStatus { message?: string; details?: { causes?: StatusCause[] } }

/** The errors of a refused dry run (a Kubernetes Status), under `module`. */
export function dryRunErrors(module: string, status: KubeStatus, env: readonly { name: string }[], configuration?: Record<string, string>): LintError[] {
  const causes = status.details?.causes ?? [];
  if (causes.length === 0) return [{ module, field: '(Job)', message: status.message ?? 'refused by the API server' }];
  return causes.map((c) => ({ module, field: moduleField(c.field ?? '', env, configuration), message: c.message ?? c.reason ?? 'invalid' }));
}
