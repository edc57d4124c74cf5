// Every change of the CascadeRuns of a namespace, from a watch of the API
// server (each change in resourceVersion order, none sampled away): the phase
// each run is in, the most runs seen in progress at once, and the order in
// which runs left the queue (were first seen in progress or ended). Beside
// it, the order in which the CascadeAutoOperators granted their slots
// (a run's first appearance in status.holders).
import type { CascadeAutoOperator } from '../../shared/api/cascade-auto-operator.ts';
import type { CascadeRun } from '../../shared/api/cascade-run.ts';
import { inform } from '../../shared/kube/informer.ts';
import { httpsTransport } from '../../shared/kube/watch-stream.ts';
import { connectionOf } from '../../local/kube.ts';
import { adminKubeConfig } from './kube.ts';

/** The informer of `path` from now on; `gaps` counts the times history was lost (410 Gone: listed again). */
function watchPath<T>(path: string, on: (type: string, obj: T) => void) {
  const i = inform({
    transport: httpsTransport(connectionOf(adminKubeConfig()), path),
    on: (type, obj) => on(type, obj as T),
  });
  return { ready: i.synced, gaps: () => Math.max(0, i.lists() - 1), stop: () => i.stop() };
}

const IN_PROGRESS = new Set(['Pending', 'Running']);

export function watchRuns(namespace: string) {
  const phases = new Map<string, string | undefined>();
  const started: string[] = [];
  const state = { maxInProgress: 0 };
  const inProgress = () => [...phases.values()].filter((p) => IN_PROGRESS.has(p ?? '')).length;
  const record = (type: string, run: CascadeRun) => {
    const name = run.metadata.name;
    if (type === 'DELETED') {
      phases.delete(name);
      return;
    }
    const phase = run.status?.phase;
    phases.set(name, phase);
    if (phase !== undefined && phase !== 'Queued' && !started.includes(name)) started.push(name);
    state.maxInProgress = Math.max(state.maxInProgress, inProgress());
  };
  const base = `/apis/cascade.cascade.net/v1alpha1/namespaces/${namespace}`;
  const runs = watchPath<CascadeRun>(`${base}/cascaderuns`, record);
  const granted = new Map<string, string[]>();
  const entered = new Map<string, string[]>();
  const firstSeen = (orders: Map<string, string[]>, name: string, runs: string[]) => {
    const order = orders.get(name) ?? [];
    for (const run of runs) if (!order.includes(run)) order.push(run);
    orders.set(name, order);
  };
  const operators = watchPath<CascadeAutoOperator>(`${base}/cascadeautooperators`, (_type, op) => {
    const holders = op.status?.holders ?? [];
    firstSeen(granted, op.metadata.name, holders);
    firstSeen(entered, op.metadata.name, [...holders, ...(op.status?.queue ?? [])]);
  });
  return {
    ready: Promise.all([runs.ready, operators.ready]),
    /** The most runs seen in phase Pending or Running at once. */
    maxInProgress: () => state.maxInProgress,
    /** Runs in the order they were first seen out of the queue (in progress or ended). */
    started: () => [...started],
    /** Runs in the order operator `name` gave them a slot. */
    granted: (name: string) => [...(granted.get(name) ?? [])],
    /** Runs in the order their starts were written on operator `name`: first seen holding a slot or queued. */
    entered: (name: string) => [...(entered.get(name) ?? [])],
    /** Times a watch lost the API server's history (a gap in what was seen). */
    gaps: () => runs.gaps() + operators.gaps(),
    stop: () => {
      runs.stop();
      operators.stop();
    },
  };
}
