// The function's own watch of its Jobs, against the real API server. A Job
// event's claim that a Job finished is confirmed from the watch's copy when
// the watch showed that Job finished so: no read of the Job. A claim the
// watch does not back, a forged one among them, is read as before and
// refuted. The watch is opened again where it left off when the API server
// ends it, and a watch RBAC refuses is logged and crashes nothing.
import { Writable } from 'node:stream';
import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditLogOf, auditMark } from './support/audit-log.ts';
import { observeJob } from '../shared/core/observed-job.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { observeJobEvent } from '../shared/engine/entry/observe-run.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { inlineOutbox } from '../shared/engine/process/outbox.ts';
import { watchedJobs, type WatchedJobs } from '../shared/engine/process/watched-jobs.ts';
import { functionEngine, noHooks } from '../shared/engine/profiles.ts';
import { kubeconfigConnection } from '../shared/kube/connect.ts';
import { watchJobs } from '../shared/kube/watches.ts';
import { keepWatching, type KeptWatch } from '../shared/kube/watch-stream.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness } from './support/cascade-harness.ts';
import { engineBase } from './support/engine-base.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeConfig, adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness;
const watches: KeptWatch[] = [];
beforeAll(async () => {
  const modules = [
    imageModule('quick', {}, { delayMs: 0 }),
    imageModule('slow', {}, { delayMs: 600_000 }),
    imageModule('last', {}, { delayMs: 0 }),
  ];
  h = await cascadeHarness({ modules, replicas: 0, source: false });
});
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});
afterAll(async () => {
  await h?.stop();
});

/** The function's engine in this process, as the function has it, with a watch of its Jobs; `from` counts its confirmations. */
function functionWithWatch(): { deps: EngineDeps; held: WatchedJobs; from: string[] } {
  const base = engineBase(h.env);
  const held = watchedJobs();
  watches.push(
    watchJobs(kubeconfigConnection(h.env.KUBECONFIG!), base.config.namespace, { see: held.see, log: base.log }),
  );
  const from: string[] = [];
  const hooks = { ...noHooks(), confirmed: (f: string) => void from.push(f) };
  const deps = functionEngine(base, {
    hooks,
    outbox: inlineOutbox(),
    background: (work) => void work.catch(() => undefined),
    heldJobs: held,
  });
  return { deps, held, from };
}

async function started(deps: EngineDeps, iuid: string): Promise<string> {
  const reply = await startRun(deps, { turlinfo: 's3://in/x.tgz', iuid });
  expect(reply.kind).toBe('accepted');
  return String((reply as { body: Record<string, unknown> }).body.run);
}

async function jobOf(run: string, step: number): Promise<V1Job> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  return waitFor(
    async () => {
      const name = (await h.getRun(run)).status?.modules?.[step]?.jobName;
      return name ? batch.readNamespacedJob({ name, namespace: h.ns }).catch(() => undefined) : undefined;
    },
    { message: `the Job of step ${step}` },
  );
}

const phases = async (run: string) => ((await h.getRun(run)).status?.modules ?? []).map((m) => m.phase);

describe("Job events confirmed from the function's watch of its Jobs", () => {
  it('a finished Job the watch showed: its event moves the run with no read of the Job', async () => {
    const { deps, held, from } = functionWithWatch();
    const run = await started(deps, 'a7c11-watch');
    const quick = await jobOf(run, 0);
    const name = quick.metadata!.name!;
    const uid = quick.metadata!.uid!;
    await waitFor(() => held.finished(name, uid, 'Succeeded'), { message: 'the watch shows the Job succeeded' });
    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const done = await batch.readNamespacedJob({ name, namespace: h.ns });

    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    const outcome = await observeJobEvent(deps, { runname: run, change: 'update', observed: observeJob(done) });
    expect(outcome).toMatchObject({ kind: 'accepted', body: { verdict: 'observed' } });
    expect(await phases(run)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(from).toEqual(['watch']);
    const calls = (await functionRequests(h.ns, mark, 0)).byVerb;
    expect(calls['jobs get']).toBeUndefined();
    // The hand-off itself: the status that starts step 2, then its Job.
    expect(calls['cascaderuns/status update']).toBe(1);
    expect(calls['jobs create']).toBe(1);
  });

  it('a forged copy of a running Job, its real name and uid with a finished status: the watch does not back it, one read refutes it', async () => {
    const { deps, from } = functionWithWatch();
    const run = await started(deps, 'a7c11-forge');
    const quick = await jobOf(run, 0);
    await observeJobEvent(deps, {
      runname: run,
      change: 'update',
      observed: observeJob({ ...quick, status: await finishedStatusOf(quick) }),
    });
    const slow = await jobOf(run, 1);
    const forged: V1Job = {
      ...slow,
      status: { conditions: [{ type: 'Complete', status: 'True', reason: 'CompletionsReached' }], succeeded: 1 },
    };

    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    const outcome = await observeJobEvent(deps, { runname: run, change: 'update', observed: observeJob(forged) });
    expect(outcome).toMatchObject({ kind: 'accepted', body: { verdict: 'ignored' } });
    expect(await phases(run)).toEqual(['Succeeded', 'Running', 'Pending']);
    expect(from.at(-1)).toBe('read');
    expect((await functionRequests(h.ns, mark, 0)).byVerb['jobs get']).toBe(1);
  });
});

/** The status a Job has once it really finished, as the API server holds it. */
async function finishedStatusOf(job: V1Job): Promise<V1Job['status']> {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const done = await waitFor(
    async () => {
      const now = await batch.readNamespacedJob({ name: job.metadata!.name!, namespace: h.ns });
      return now.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? now : undefined;
    },
    { message: `Job ${job.metadata?.name} complete` },
  );
  return done.status;
}

describe("the function's kept watch", () => {
  it('is opened again where it left off when the API server ends it: nothing told twice, nothing missed', async () => {
    const seen: string[] = [];
    const log = pino({ level: 'silent' });
    watches.push(
      keepWatching({
        conn: kubeconfigConnection(adminKubeconfigPath()),
        path: `/api/v1/namespaces/${h.ns}/configmaps`,
        query: { labelSelector: 'kept', timeoutSeconds: '1' },
        on: (change, object) => seen.push(`${change} ${(object as { metadata: { name: string } }).metadata.name}`),
        log,
      }),
    );
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    const body = (name: string, v: string) => ({ metadata: { name, labels: { kept: 'yes' } }, data: { v } });
    await core.createNamespacedConfigMap({ namespace: h.ns, body: body('kept-1', '1') });
    await waitFor(() => seen.length === 1 || undefined, { message: 'the first change seen' });
    // Two of the API server's one-second watches end meanwhile.
    await new Promise((r) => setTimeout(r, 2500));
    await core.replaceNamespacedConfigMap({ name: 'kept-1', namespace: h.ns, body: body('kept-1', '2') });
    await core.createNamespacedConfigMap({ namespace: h.ns, body: body('kept-2', '1') });
    await waitFor(() => seen.length >= 3 || undefined, { message: 'the later changes seen' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen).toEqual(['ADDED kept-1', 'MODIFIED kept-1', 'ADDED kept-2']);
  });

  it('refused by RBAC: logged, tried again later, nothing thrown', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    // The function's ServiceAccount may not watch ConfigMaps.
    watches.push(
      keepWatching({
        conn: kubeconfigConnection(h.env.KUBECONFIG!),
        path: `/api/v1/namespaces/${h.ns}/configmaps`,
        on: () => {},
        log: pino({ level: 'warn' }, sink),
      }),
    );
    const warned = await waitFor(() => lines.find((l) => l.includes('watch lost')), { message: 'the refusal logged' });
    expect(JSON.parse(warned)).toMatchObject({ end: 'refused', path: `/api/v1/namespaces/${h.ns}/configmaps` });
  });
});
