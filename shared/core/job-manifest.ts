// The Job of one step, exactly as the Go controller built it (pod environment,
// labels, Job fields), plus an ownerReference to the CascadeRun and labels tying
// the Job to its run and step. Its pod runs as the modules' own ServiceAccount,
// without an API token, unless the template names a ServiceAccount. Pure: no I/O.
import type { V1EnvVar, V1Job, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { CascadeModule } from '../api/scenario.ts';
import { API_VERSION, CASCADE_RUN_KIND } from '../api/group.ts';
import { applyModuleSink, bindingLabel, type ModuleSink } from './module-sink.ts';
import {
  LABEL_APP,
  LABEL_APP_VALUE,
  LABEL_ATTEMPT,
  LABEL_GO_MODULE,
  LABEL_MODULE,
  LABEL_RUN,
  LABEL_STEP,
  attemptJobName,
  iuidPrefix,
  jobName,
  toLabelValue,
} from '../names.ts';

export interface RunRef {
  name: string;
  uid: string;
  iuid: string;
  turlinfo: string;
  modules: readonly CascadeModule[];
}

export interface JobSettings {
  namespace: string;
  scenarioName: string;
  outMinioAddress: string;
  /** K_SINK the function gives each module Job itself (module-sink.ts); unset: the SinkBinding gives it. */
  moduleSink?: ModuleSink | undefined;
}

/** `s3path` of step i: the run's input for step 0, the previous stage's output after. */
export function s3Path(settings: JobSettings, run: RunRef, step: number): string {
  if (step === 0) return run.turlinfo;
  return `${settings.outMinioAddress}${settings.scenarioName}/${run.iuid}/${run.iuid}-stage-${step}.zip`;
}

/**
 * Names Cascade computes for every step's first container. They are reserved
 * on every step: a configuration key (or an env entry of the module's
 * template) that repeats one is dropped, even where the computed variable is
 * not set, so `finalstage` reaches only the last step's container, as `true`.
 * (The Go controller kept a configuration's `finalstage` on the other steps.)
 */
export const COMPUTED_ENV = ['s3path', 'finalstage', 'NAMESPACE', 'SCENARIONAME'] as const;
const RESERVED: ReadonlySet<string> = new Set(COMPUTED_ENV);

/**
 * The container environment the Go controller set: configuration entries, then
 * s3path, finalstage (last step only), NAMESPACE and SCENARIONAME, the
 * computed names never taken from the configuration.
 */
export function moduleEnv(settings: JobSettings, run: RunRef, step: number): V1EnvVar[] {
  const module = run.modules[step];
  const computed: V1EnvVar[] = [{ name: 's3path', value: s3Path(settings, run, step) }];
  if (step === run.modules.length - 1) computed.push({ name: 'finalstage', value: 'true' });
  computed.push({ name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } });
  computed.push({ name: 'SCENARIONAME', value: settings.scenarioName });
  const config = Object.entries(module?.configuration ?? {})
    .filter(([name]) => !RESERVED.has(name))
    .map(([name, value]) => ({ name, value }));
  return [...config, ...computed];
}

export function jobLabels(run: RunRef, step: number, attempt = 1): Record<string, string> {
  const module = run.modules[step]?.modulename ?? '';
  return {
    [LABEL_APP]: LABEL_APP_VALUE,
    [LABEL_GO_MODULE]: toLabelValue(`${module}-${iuidPrefix(run.iuid)}`),
    [LABEL_RUN]: run.name,
    [LABEL_STEP]: String(step),
    [LABEL_MODULE]: toLabelValue(module),
    [LABEL_ATTEMPT]: String(attempt),
  };
}

/** The ServiceAccount of a module's pod whose template names none (knative/rbac.yaml): no Role, no token. */
export const MODULE_SERVICE_ACCOUNT = 'cascade-module';

/**
 * A template that names no ServiceAccount (`serviceAccountName`, or its
 * deprecated alias `serviceAccount`) runs as MODULE_SERVICE_ACCOUNT, and gets
 * no API token unless it sets `automountServiceAccountToken` itself. One that
 * names a ServiceAccount is kept as written: its token follows the template,
 * then the ServiceAccount, as Kubernetes defines it.
 */
function fence(spec: NonNullable<V1PodTemplateSpec['spec']>): void {
  if (spec.serviceAccountName || spec.serviceAccount) return;
  spec.serviceAccountName = MODULE_SERVICE_ACCOUNT;
  spec.automountServiceAccountToken ??= false;
}

function podTemplate(
  template: unknown,
  env: V1EnvVar[],
  labels: Record<string, string>,
  sink: ModuleSink | undefined,
): V1PodTemplateSpec {
  const copy = (template === undefined ? undefined : JSON.parse(JSON.stringify(template))) as V1PodTemplateSpec;
  if (copy.spec) fence(copy.spec);
  const containers = copy.spec?.containers ?? [];
  const first = containers[0];
  if (first) {
    const keep = (first.env ?? []).filter((e) => !RESERVED.has(e.name) && !env.some((n) => n.name === e.name));
    first.env = [...keep, ...env];
  }
  if (copy.spec && sink) applyModuleSink(copy.spec, sink);
  copy.metadata = {
    ...copy.metadata,
    labels: { ...copy.metadata?.labels, [LABEL_RUN]: labels[LABEL_RUN]!, [LABEL_STEP]: labels[LABEL_STEP]! },
  };
  return copy;
}

/** The Job of attempt `attempt` (1 unless retried or resumed) of step `step`. */
export function buildJob(settings: JobSettings, run: RunRef, step: number, attempt = 1): V1Job {
  const module = run.modules[step];
  if (!module) throw new RangeError(`step ${step} is outside the scenario of ${run.name}`);
  const labels = jobLabels(run, step, attempt);
  const name = attemptJobName(
    jobName(
      settings.scenarioName,
      run.name,
      run.modules.map((m) => m.modulename),
      step,
    ),
    attempt,
  );
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: settings.namespace,
      labels: { ...labels, ...bindingLabel(settings.moduleSink) },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: CASCADE_RUN_KIND,
          name: run.name,
          uid: run.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      backoffLimit: module.backoffLimit,
      activeDeadlineSeconds: module.activeDeadlineSeconds,
      ttlSecondsAfterFinished: module.ttlSecondsAfterFinished,
      template: podTemplate(module.template, moduleEnv(settings, run, step), labels, settings.moduleSink),
    },
  };
}
