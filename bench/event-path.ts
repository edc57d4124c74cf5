// The function's CPU per incoming change event, the part of a step transition
// that no API call follows. A transition brings ~8 requests. All but the
// module result are the ApiServerSource's Job and CascadeRun change events.
// Most of those change nothing: a running Job's add and update, a status
// write's CascadeRun update. The bench posts real objects of a run in progress
// to the function as binary CloudEvents, as the API server returns them,
// managedFields and all. A few senders post them as many times as fit in the
// window. The function's CPU (/proc) over the requests answered is its cost of
// one such event. Focused and quiet: no API call is made, so the control
// plane's load does not enter (compare builds in interleaved pairs).
import { randomUUID } from 'node:crypto';
import { BatchV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CASCADE_RUN_PLURAL, GROUP, VERSION } from '../shared/api/group.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { postJson, runRequest, type Install } from './install.ts';
import { cpuSeconds } from './procfs.ts';

export interface EventPath {
  /** Events answered in the window (each answered 200). */
  events: number;
  /** Replies other than 200. */
  refused: number;
  seconds: number;
  /** The function's CPU per event, µs of one core. */
  cpuUsPerEvent: number;
  /** Of its main thread alone (the one thread that bounds one process's rate). */
  mainThreadUsPerEvent: number;
  /** Job events among them (the rest are CascadeRun events). */
  jobShare: number;
  /** Bytes of the Job's and of the CascadeRun's event body. */
  jobBytes: number;
  runBytes: number;
}

export interface Sample {
  type: string;
  body: string;
}

/**
 * A running Job's add and update and its run's status update, each as the
 * ApiServerSource sends it: the objects of a run in progress (`inst` runs a
 * scenario of at least 2 modules whose pods never start).
 */
export async function eventMix(kc: KubeConfig, inst: Install): Promise<Sample[]> {
  const started = await postJson(inst.fn.url, runRequest('events'));
  const run = started.body.run as string;
  if (started.status !== 200) throw new Error(`run request answered ${started.status}`);
  const r1 = await postJson(inst.fn.url, { runname: run, modulename: 'm0', moduleresult: 'success' });
  if (r1.status !== 200) throw new Error(`module result answered ${r1.status}`);
  const jobs = await kc
    .makeApiClient(BatchV1Api)
    .listNamespacedJob({ namespace: inst.ns, labelSelector: `${LABEL_RUN}=${run}` });
  const job = jobs.items[0];
  if (!job) throw new Error('no Job of the run');
  const cr = await inst.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: inst.ns,
    plural: CASCADE_RUN_PLURAL,
    name: run,
  });
  // The client's own typed objects hold Dates; the API server sent strings.
  const jobJson = JSON.stringify({
    apiVersion: 'batch/v1',
    kind: 'Job',
    ...(JSON.parse(JSON.stringify(job)) as object),
  });
  return [
    { type: 'dev.knative.apiserver.resource.update', body: jobJson },
    { type: 'dev.knative.apiserver.resource.update', body: jobJson },
    { type: 'dev.knative.apiserver.resource.add', body: jobJson },
    { type: 'dev.knative.apiserver.resource.update', body: JSON.stringify(cr) },
  ];
}

async function post(url: string, s: Sample): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'ce-specversion': '1.0',
      'ce-id': randomUUID(),
      'ce-type': s.type,
      'ce-source': 'https://kubernetes.default.svc',
      'ce-subject': '/apis/batch/v1/namespaces/bench/jobs/x',
    },
    body: s.body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** What `senders` posting `mix` at once for `windowMs` cost process `pid` (after `warmup` posts one at a time). */
export async function drive(
  url: string,
  pid: number,
  mix: readonly Sample[],
  senders: number,
  windowMs: number,
  warmup = 2000,
) {
  for (let i = 0; i < warmup; i++) await post(url, mix[i % mix.length]!);
  let events = 0;
  let refused = 0;
  let jobs = 0;
  const cpu0 = cpuSeconds(pid) ?? 0;
  const main0 = cpuSeconds(pid, true) ?? 0;
  const start = performance.now();
  const until = start + windowMs;
  await Promise.all(
    Array.from({ length: senders }, async (_, k) => {
      for (let i = k; performance.now() < until; i++) {
        const s = mix[i % mix.length]!;
        const status = await post(url, s);
        if (status >= 200 && status < 300) {
          events++;
          if (s.body.includes('"kind":"Job"')) jobs++;
        } else refused++;
      }
    }),
  );
  const cpu = (cpuSeconds(pid) ?? 0) - cpu0;
  const main = (cpuSeconds(pid, true) ?? 0) - main0;
  return {
    events,
    refused,
    seconds: (performance.now() - start) / 1000,
    cpuUsPerEvent: (cpu * 1e6) / Math.max(1, events),
    mainThreadUsPerEvent: (main * 1e6) / Math.max(1, events),
    jobShare: jobs / Math.max(1, events),
  };
}

/** The function's cost of the events of `mix` (eventMix), `senders` at once for `windowMs`. */
export async function eventPath(
  inst: Install,
  mix: readonly Sample[],
  senders: number,
  windowMs: number,
): Promise<EventPath> {
  const r = await drive(inst.fn.url, inst.fn.child.pid!, mix, senders, windowMs);
  return { ...r, jobBytes: mix[0]!.body.length, runBytes: mix[3]!.body.length };
}
