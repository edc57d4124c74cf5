// The thin adapter between the engine and the Kubernetes API: every call the
// engine makes, each retried on short blips. Nothing here decides anything.
import type { BatchV1Api, CoreV1Api, CustomObjectsApi, V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator, CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun, CascadeRunStatus } from '../api/cascade-run.ts';
import { API_VERSION, CASCADE_AUTO_OPERATOR_PLURAL, CASCADE_RUN_PLURAL, GROUP, VERSION } from '../api/group.ts';
import { LABEL_RUN } from '../names.ts';
import { apiErrorKind } from './errors.ts';
import { withRetry, type RetryPolicy } from './retry.ts';

export interface KubeApis {
  batch: BatchV1Api;
  core: CoreV1Api;
  custom: CustomObjectsApi;
}

export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface Store {
  getRun(name: string): Promise<CascadeRun | undefined>;
  listRuns(labelSelector?: string): Promise<CascadeRun[]>;
  createRun(run: CascadeRun): Promise<CascadeRun | 'exists'>;
  writeRunStatus(run: CascadeRun, status: CascadeRunStatus): Promise<CascadeRun>;
  deleteRun(name: string): Promise<void>;
  listJobs(runName?: string): Promise<V1Job[]>;
  createJob(job: V1Job): Promise<'created' | 'exists'>;
  deleteJob(name: string): Promise<void>;
  getOperator(name: string): Promise<CascadeAutoOperator | undefined>;
  writeOperatorStatus(op: CascadeAutoOperator, status: CascadeAutoOperatorStatus): Promise<CascadeAutoOperator>;
  writeOperatorFinalizers(op: CascadeAutoOperator, finalizers: string[]): Promise<void>;
  recordEvent(run: CascadeRun, note: EventNote, now: Date): Promise<void>;
}

async function orMissing<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (apiErrorKind(error) === 'not-found') return undefined;
    throw error;
  }
}

export function kubeStore(apis: KubeApis, namespace: string, policy: RetryPolicy): Store {
  const r = <T>(call: () => Promise<T>) => withRetry(policy, call);
  const runs = { group: GROUP, version: VERSION, namespace, plural: CASCADE_RUN_PLURAL };
  const ops = { group: GROUP, version: VERSION, namespace, plural: CASCADE_AUTO_OPERATOR_PLURAL };
  return {
    getRun: (name) => r(() => orMissing(apis.custom.getNamespacedCustomObject({ ...runs, name }) as Promise<CascadeRun>)),
    listRuns: async (labelSelector) => {
      const list = await r(() => apis.custom.listNamespacedCustomObject({ ...runs, labelSelector }) as Promise<{ items: CascadeRun[] }>);
      return list.items;
    },
    createRun: (run) => r(async () => {
      try {
        return (await apis.custom.createNamespacedCustomObject({ ...runs, body: run })) as CascadeRun;
      } catch (error) {
        if (apiErrorKind(error) === 'conflict') return 'exists';
        throw error;
      }
    }),
    writeRunStatus: (run, status) => r(() => apis.custom.replaceNamespacedCustomObjectStatus({
      ...runs, name: run.metadata.name, body: { ...run, apiVersion: API_VERSION, kind: 'CascadeRun', status },
    }) as Promise<CascadeRun>),
    deleteRun: async (name) => {
      await r(() => orMissing(apis.custom.deleteNamespacedCustomObject({ ...runs, name, propagationPolicy: 'Background' })));
    },
    listJobs: async (runName) => {
      const labelSelector = runName ? `${LABEL_RUN}=${runName}` : LABEL_RUN;
      return (await r(() => apis.batch.listNamespacedJob({ namespace, labelSelector }))).items;
    },
    createJob: (job) => r(async () => {
      try {
        await apis.batch.createNamespacedJob({ namespace, body: job });
        return 'created';
      } catch (error) {
        if (apiErrorKind(error) === 'conflict') return 'exists';
        throw error;
      }
    }),
    deleteJob: async (name) => {
      await r(() => orMissing(apis.batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' })));
    },
    getOperator: (name) => r(() => orMissing(apis.custom.getNamespacedCustomObject({ ...ops, name }) as Promise<CascadeAutoOperator>)),
    writeOperatorStatus: (op, status) => r(() => apis.custom.replaceNamespacedCustomObjectStatus({
      ...ops, name: op.metadata.name, body: { ...op, status },
    }) as Promise<CascadeAutoOperator>),
    writeOperatorFinalizers: async (op, finalizers) => {
      await r(() => apis.custom.replaceNamespacedCustomObject({
        ...ops, name: op.metadata.name, body: { ...op, metadata: { ...op.metadata, finalizers } },
      }));
    },
    recordEvent: async (run, note, now) => {
      await r(() => apis.core.createNamespacedEvent({ namespace, body: {
        metadata: { generateName: `${run.metadata.name}.`, namespace },
        involvedObject: { apiVersion: API_VERSION, kind: 'CascadeRun', name: run.metadata.name, namespace, uid: run.metadata.uid },
        type: note.type, reason: note.reason, message: note.message,
        firstTimestamp: now, lastTimestamp: now, count: 1,
        source: { component: 'cascade' }, reportingComponent: 'cascade', reportingInstance: 'cascade',
      } }));
    },
  };
}
