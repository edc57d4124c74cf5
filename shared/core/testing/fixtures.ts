// Builders for the core's unit tests: a stored run, Jobs as the core sees them.
import type { CascadeRun, CascadeRunStatus } from '../../api/cascade-run.ts';
import type { CascadeModule } from '../../api/scenario.ts';
import type { ObservedJob, JobState } from '../observed-job.ts';
import type { DecideInput, DecideSettings, Fact } from '../types.ts';
import { jobName } from '../../names.ts';
import { API_VERSION, CASCADE_RUN_KIND } from '../../api/group.ts';

export const SETTINGS: DecideSettings = {
  namespace: 'cascade-test',
  scenarioName: 'cao',
  outMinioAddress: 'http://minio/out/',
  stallAfterSeconds: 0,
  runTimeoutSeconds: 0,
  sink: false,
};

export const NOW = '2026-11-29T12:00:00.000Z';
export const IUID = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';
export const RUN = 'cao-33e65';

export function module(modulename: string, configuration: Record<string, string> = {}): CascadeModule {
  return {
    modulename,
    configuration,
    backoffLimit: 0,
    template: {
      spec: { containers: [{ name: modulename, image: `example/${modulename}:1` }], restartPolicy: 'Never' },
    },
  };
}

export function run(names: string[], status?: CascadeRunStatus): CascadeRun {
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_RUN_KIND,
    metadata: { name: RUN, namespace: SETTINGS.namespace, uid: 'uid-1', generation: 1, resourceVersion: '7' },
    spec: {
      ob: 'org',
      src: 'src',
      pid: IUID,
      scenarioname: SETTINGS.scenarioName,
      modules: names,
      turlinfo: 's3://in/input.tgz',
      cascademodules: names.map((n) => module(n)),
    },
    ...(status ? { status } : {}),
  };
}

export function job(names: string[], step: number, state: JobState, extra: Partial<ObservedJob> = {}): ObservedJob {
  return {
    name: jobName(SETTINGS.scenarioName, RUN, names, step),
    run: RUN,
    step,
    state,
    startTime: '2026-11-29T11:59:00.000Z',
    deleting: false,
    // A finished Job here is one the Job controller is done with (Complete or Failed set).
    done: state !== 'Active',
    ...extra,
  };
}

export function input(r: CascadeRun, jobs: ObservedJob[], fact: Fact = { kind: 'Observe' }, now = NOW): DecideInput {
  return { run: r, jobs, fact, now, settings: SETTINGS };
}

export function result(modulename: string, moduleresult: string): Fact {
  return { kind: 'ModuleResult', modulename, moduleresult };
}
