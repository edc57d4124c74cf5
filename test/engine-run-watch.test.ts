// Two replicas in-process against the real API server, each with its own
// cache of the runs it holds and its own watch of the runs. Replica B moves a
// run that replica A started. A's watch shows A that write, so A's next
// decision on the run starts from it: one status write, accepted, and no
// read of the run. Without the watch, A's copy is stale: it does not show the
// second step started, so A reads the run again before it acts. (A stale copy
// that would act is refused at its write with a 409, then read again:
// engine-stale-decider.test.ts.) An ended copy may have been resumed since:
// a module result that changes nothing on it reads the run. Counted from the
// audit log.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditLogOf, auditMark } from './support/audit-log.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { acceptModuleResult } from '../shared/engine/entry/accept-result.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { runCache } from '../shared/engine/process/run-cache.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';
import { kubeconfigConnection } from '../shared/kube/connect.ts';
import type { KeptWatch } from '../shared/kube/watch-stream.ts';
import { watchRuns } from '../shared/kube/watches.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness } from './support/cascade-harness.ts';
import { engineBase } from './support/engine-base.ts';
import { functionRequests } from './support/function-requests.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';

let h: Harness;
const watches: KeptWatch[] = [];
const FOREVER = { delayMs: 600_000 };
beforeAll(async () => {
  const modules = [
    imageModule('first', {}, FOREVER),
    imageModule('second', {}, FOREVER),
    imageModule('third', {}, FOREVER),
  ];
  h = await cascadeHarness({ modules, replicas: 0, source: false });
});
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});
afterAll(async () => {
  await h?.stop();
});

/** One replica: its own connection and cache of the runs it holds; with `watch`, its watch of the runs feeds that cache. */
function replica(watch: boolean): EngineDeps {
  const base = engineBase(h.env);
  const deps = { ...janitorEngine(base), runs: runCache() };
  const conn = kubeconfigConnection(h.env.KUBECONFIG!);
  if (watch) watches.push(watchRuns(conn, base.config.namespace, { see: deps.runs.offer, log: base.log }));
  return deps;
}

/** Replica B moves the run A started past its first step; A then ends the second. Returns A's status writes and run reads. */
async function secondStepOnA(a: EngineDeps, b: EngineDeps, iuid: string, waitForA: boolean) {
  const started = await startRun(a, { turlinfo: 's3://in/x.tgz', iuid });
  const run = String((started as { body: Record<string, unknown> }).body.run);
  const result = (modulename: string) => ({ runname: run, modulename, moduleresult: 'success' });
  expect(await acceptModuleResult(b, result('first'))).toMatchObject({ body: { verdict: 'applied' } });
  const written = (await h.getRun(run)).metadata.resourceVersion;
  if (waitForA)
    await waitFor(() => a.runs.get(run)?.metadata.resourceVersion === written || undefined, {
      message: "A's watch shows B's write",
    });
  const mark = auditMark(auditLogOf(adminKubeconfigPath()));
  expect(await acceptModuleResult(a, result('second'))).toMatchObject({ body: { verdict: 'applied' } });
  expect(((await h.getRun(run)).status?.modules ?? []).map((m) => m.phase)).toEqual([
    'Succeeded',
    'Succeeded',
    'Running',
  ]);
  const calls = (await functionRequests(h.ns, mark, 0)).byVerb;
  return { statusWrites: calls['cascaderuns/status update'], reads: calls['cascaderuns get'] ?? 0 };
}

describe("a run another replica moved, with the process's watch of the runs", () => {
  it("is decided from that replica's write: one status write, no 409, no read of the run", async () => {
    const a = replica(true);
    const b = replica(true);
    expect(await secondStepOnA(a, b, '0b5e1-watched', true)).toEqual({ statusWrites: 1, reads: 0 });
  });

  it('without the watch, is read again before A acts', async () => {
    const a = replica(false);
    const b = replica(false);
    expect(await secondStepOnA(a, b, '0b5e2-unwatched', false)).toEqual({ statusWrites: 1, reads: 1 });
  });
});

describe('a module result on an ended copy the process holds', () => {
  it('that changes nothing on the copy is decided from the run as stored: another writer may have resumed it', async () => {
    const a = replica(false);
    const started = await startRun(a, { turlinfo: 's3://in/x.tgz', iuid: '0b5e3-ended' });
    const run = String((started as { body: Record<string, unknown> }).body.run);
    const result = (modulename: string) => ({ runname: run, modulename, moduleresult: 'success' });
    for (const m of ['first', 'second', 'third'])
      expect(await acceptModuleResult(a, result(m))).toMatchObject({ body: { verdict: 'applied' } });
    expect((await h.getRun(run)).status?.phase).toBe('Succeeded');
    expect(a.runs.get(run)?.status?.phase, 'A holds the ended copy').toBe('Succeeded');
    const mark = auditMark(auditLogOf(adminKubeconfigPath()));
    expect(await acceptModuleResult(a, result('third'))).toMatchObject({ body: { run } });
    const calls = (await functionRequests(h.ns, mark, 0)).byVerb;
    expect(calls['cascaderuns get']).toBe(1);
  });
});
