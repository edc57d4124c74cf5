// The Jobs `lint` asks the API server to dry-run: built by the function's own
// manifest code (shared/core/job-manifest.ts) for a stand-in run, without the
// ownerReference to that run, which does not exist. Pure.
import type { V1Job } from '@kubernetes/client-node';
import * as v from 'valibot';
import { CascadeModuleSchema, type CascadeModule } from '../../shared/api/scenario.ts';
import { buildJob } from '../../shared/core/job-manifest.ts';

export interface LintJob {
  index: number;
  module: CascadeModule;
  job: V1Job;
}

const standIn = (index: number): CascadeModule => ({
  modulename: `module-${index}`,
  template: { spec: { containers: [{ name: 'x' }] } },
});

/** A Job for each module that the schema takes (the others are reported by the schema already). */
export function lintJobs(rawModules: unknown, namespace: string, scenarioName: string): LintJob[] {
  if (!Array.isArray(rawModules)) return [];
  const parsed = rawModules.map((raw) => v.safeParse(CascadeModuleSchema, raw));
  const modules = parsed.map((r, i) => (r.success ? r.output : standIn(i)));
  const run = {
    name: `${scenarioName}-lint`.slice(0, 63).replace(/-+$/, ''),
    uid: '00000000-0000-0000-0000-000000000000',
    iuid: 'lint',
    turlinfo: 's3://lint/input',
    modules,
  };
  return parsed.flatMap((r, index) => {
    if (!r.success) return [];
    const job = buildJob({ namespace, scenarioName, outMinioAddress: 'http://lint.invalid/' }, run, index);
    delete job.metadata!.ownerReferences;
    return [{ index, module: r.output, job }];
  });
}
