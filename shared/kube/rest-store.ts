// The Store over the Kubernetes REST API (rest.ts): every call the engine
// makes, each retried on short blips (a refusal from an API server still
// starting is one: not-ready.ts). Nothing here decides anything.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator } from '../api/cascade-auto-operator.ts';
import type { CascadeRun } from '../api/cascade-run.ts';
import {
  API_VERSION,
  CASCADE_AUTO_OPERATOR_PLURAL,
  CASCADE_RUN_KIND,
  CASCADE_RUN_PLURAL,
  GROUP,
  VERSION,
} from '../api/group.ts';
import { LABEL_ATTEMPT, LABEL_RUN, LABEL_STEP } from '../names.ts';
import { apiErrorKind, type ApiErrorKind } from './errors.ts';
import { refusalsWhileStarting } from './not-ready.ts';
import type { Page, PageRequest } from './pages.ts';
import type { Rest } from './rest.ts';
import { withRetry, type RetryPolicy } from './api-retry.ts';
import type { EventNote, Store } from './store.ts';

/** The call's value, or `value` when the API server answers with an error of `kind`. */
async function orWhen<T, U>(kind: ApiErrorKind, value: U, call: Promise<T>): Promise<T | U> {
  try {
    return await call;
  } catch (error) {
    if (apiErrorKind(error) === kind) return value;
    throw error;
  }
}

const orMissing = <T>(call: Promise<T>) => orWhen('not-found', undefined, call);
const orExists = <T>(call: Promise<T>) => orWhen('conflict', 'exists' as const, call);
/** A delete whose uid precondition failed: the Job of that uid is gone, another has its name. */
const orOtherUid = <T>(call: Promise<T>) => orWhen('conflict', undefined, call);

interface List<T> {
  items: T[];
  metadata?: { continue?: string };
}

const page = <T>(list: List<T>): Page<T> => ({ items: list.items, continue: list.metadata?.continue || undefined });
const pageQuery = (request: PageRequest) => ({ limit: String(request.limit), continue: request.continue });

const BACKGROUND = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };

/** Runs a call to the API server, retried on short blips and on refusals while it starts. */
type Retrying = <T>(call: () => Promise<T>) => Promise<T>;

/** The Store's calls on Cascade's Jobs (labelled with their run) under `jobs`. */
function jobCalls(
  rest: Rest,
  r: Retrying,
  jobs: string,
): Pick<Store, 'listJobs' | 'pageJobs' | 'getJob' | 'createJob' | 'deleteJob' | 'deleteRunJobs'> {
  return {
    listJobs: async (runName) => {
      const labelSelector = runName ? `${LABEL_RUN}=${runName}` : LABEL_RUN;
      return (await r(() => rest<{ items: V1Job[] }>('GET', jobs, { query: { labelSelector } }))).items;
    },
    pageJobs: async (request) =>
      page(
        await r(() => rest<List<V1Job>>('GET', jobs, { query: { labelSelector: LABEL_RUN, ...pageQuery(request) } })),
      ),
    getJob: (name) => r(() => orMissing(rest<V1Job>('GET', `${jobs}/${name}`))),
    createJob: (job) =>
      r(async () => {
        const created = await orExists(rest<V1Job>('POST', jobs, { body: job }));
        return created === 'exists' ? 'exists' : { uid: created.metadata?.uid };
      }),
    deleteJob: async (name, uid) => {
      const body = uid ? { ...BACKGROUND, preconditions: { uid } } : BACKGROUND;
      await r(() => orMissing(orOtherUid(rest('DELETE', `${jobs}/${name}`, { body, discard: true }))));
    },
    deleteRunJobs: async (runName, keep) => {
      const ofRun = `${LABEL_RUN}=${runName}`;
      const selectors = !keep
        ? [ofRun]
        : [
            `${ofRun},${LABEL_STEP}!=${keep.step}`,
            ...(keep.attempt > 1 ? [`${ofRun},${LABEL_STEP}=${keep.step},${LABEL_ATTEMPT}!=${keep.attempt}`] : []),
          ];
      await Promise.all(
        selectors.map((labelSelector) =>
          r(() => rest('DELETE', jobs, { query: { labelSelector }, body: BACKGROUND, discard: true })),
        ),
      );
    },
  };
}

/** The core/v1 Event that records `note` about `run`, as Cascade reports it. */
function runEvent(run: CascadeRun, note: EventNote, now: Date, namespace: string) {
  const at = now.toISOString();
  return {
    metadata: { generateName: `${run.metadata.name}.`, namespace },
    involvedObject: {
      apiVersion: API_VERSION,
      kind: CASCADE_RUN_KIND,
      name: run.metadata.name,
      namespace,
      uid: run.metadata.uid,
    },
    type: note.type,
    reason: note.reason,
    message: note.message,
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    source: { component: 'cascade' },
    reportingComponent: 'cascade',
    reportingInstance: 'cascade',
  };
}

export function restStore(untimed: Rest, namespace: string, policy: RetryPolicy): Store {
  const rest: Rest = (method, path, opts = {}) =>
    untimed(method, path, { timeoutMs: policy.attemptTimeoutMs, ...opts });
  const unlessStarting = refusalsWhileStarting(rest);
  const r: Retrying = (call) => withRetry(policy, () => unlessStarting(call));
  const runs = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_RUN_PLURAL}`;
  const ops = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${CASCADE_AUTO_OPERATOR_PLURAL}`;
  return {
    getRun: (name) => r(() => orMissing(rest<CascadeRun>('GET', `${runs}/${name}`))),
    listRuns: async (labelSelector) =>
      (await r(() => rest<{ items: CascadeRun[] }>('GET', runs, { query: { labelSelector } }))).items,
    createRun: (run) => r(() => orExists(rest<CascadeRun>('POST', runs, { body: run }))),
    writeRunStatus: (run, status) =>
      r(() =>
        rest<CascadeRun>('PUT', `${runs}/${run.metadata.name}/status`, {
          body: { ...run, apiVersion: API_VERSION, kind: CASCADE_RUN_KIND, status },
        }),
      ),
    deleteRun: async (name) => {
      await r(() => orMissing(rest('DELETE', `${runs}/${name}`, { body: BACKGROUND, discard: true })));
    },
    pageRuns: async (request) =>
      page(await r(() => rest<List<CascadeRun>>('GET', runs, { query: pageQuery(request) }))),
    ...jobCalls(rest, r, `/apis/batch/v1/namespaces/${namespace}/jobs`),
    getOperator: (name) => r(() => orMissing(rest<CascadeAutoOperator>('GET', `${ops}/${name}`))),
    writeOperatorStatus: (op, status) =>
      r(() => rest<CascadeAutoOperator>('PUT', `${ops}/${op.metadata.name}/status`, { body: { ...op, status } })),
    writeOperatorFinalizers: (op, finalizers) =>
      r(() =>
        rest<CascadeAutoOperator>('PUT', `${ops}/${op.metadata.name}`, {
          body: { ...op, metadata: { ...op.metadata, finalizers } },
        }),
      ),
    recordEvent: async (run, note, now) => {
      const body = runEvent(run, note, now, namespace);
      await r(() => rest('POST', `/api/v1/namespaces/${namespace}/events`, { body, discard: true }));
    },
  };
}
