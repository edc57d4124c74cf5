// The port between the engine and the Kubernetes API: every call the engine
// makes. Implemented over the REST API by rest-store.ts.
import type { V1Job } from '@kubernetes/client-node';
import type { CascadeAutoOperator, CascadeAutoOperatorStatus } from '../api/cascade-auto-operator.ts';
import type { CascadeRun, CascadeRunStatus } from '../api/cascade-run.ts';
import type { Page, PageRequest } from './pages.ts';
import type { EventNote } from '../core/transition-event.ts';
import type { JobAttempt } from '../core/types.ts';

export type { EventNote } from '../core/transition-event.ts';

export interface Store {
  getRun(name: string): Promise<CascadeRun | undefined>;
  listRuns(labelSelector?: string): Promise<CascadeRun[]>;
  createRun(run: CascadeRun): Promise<CascadeRun | 'exists'>;
  writeRunStatus(run: CascadeRun, status: CascadeRunStatus): Promise<CascadeRun>;
  deleteRun(name: string): Promise<void>;
  listJobs(runName?: string): Promise<V1Job[]>;
  /** One Job as the API server holds it; undefined when there is none of that name. */
  getJob(name: string): Promise<V1Job | undefined>;
  /** One page of every CascadeRun (the janitor: pages.ts). */
  pageRuns(request: PageRequest): Promise<Page<CascadeRun>>;
  /** One page of every Job of Cascade's (labelled with a run). */
  pageJobs(request: PageRequest): Promise<Page<V1Job>>;
  /** The uid of the Job created, or 'exists' when one of that name was there already. */
  createJob(job: V1Job): Promise<{ uid: string | undefined } | 'exists'>;
  /** Deletes the Job; with `uid`, only when the Job of that name has that uid. Gone already: done. */
  deleteJob(name: string, uid?: string): Promise<void>;
  /** Deletes every Job of run `runName` by its label, but the Job of `keep`: one request, two with a kept step retried. */
  deleteRunJobs(runName: string, keep?: JobAttempt): Promise<void>;
  getOperator(name: string): Promise<CascadeAutoOperator | undefined>;
  writeOperatorStatus(op: CascadeAutoOperator, status: CascadeAutoOperatorStatus): Promise<CascadeAutoOperator>;
  /** Replaces the operator's finalizers, guarded by its resourceVersion; returns it as written. */
  writeOperatorFinalizers(op: CascadeAutoOperator, finalizers: string[]): Promise<CascadeAutoOperator>;
  recordEvent(run: CascadeRun, note: EventNote, now: Date): Promise<void>;
}
