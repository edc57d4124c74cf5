// Issue 4: SIGTERM during a burst of run requests. faas-js-runtime traps the
// signal with `death` and calls our exported shutdown() (drain), then closes
// its server and exits 0. A K_SINK that holds run-end events keeps one send
// of ours in flight (after its request was answered) for as long as the test
// needs, so the drain is observed deterministically: readiness 503, new run
// requests 503, the event sent once released, exit 0 within the grace period.
// The ApiServerSource runs throughout; at SIGTERM a new process takes the
// Broker's deliveries, as Knative routes around a draining pod. It gets every
// run request that was not answered 200, as a sender would send it again, and
// every run completes once, with exact counters.
// A request still in flight when the grace period ends (the API server stalled
// behind a proxy) is cut, unanswered, for its sender to send again.
// The function is signalled directly: in a Knative pod it gets SIGTERM only
// after queue-proxy has drained (test/ops-queue-proxy.test.ts), and then
// behaves as here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LABEL_RUN } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, post, serverErrors } from './support/cascade-harness.ts';
import { startFunction, type FunctionProcess } from '../local/stand-ins/function-process.ts';
import { CoreV1Api } from '@kubernetes/client-node';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { heldSink, send, type Answer } from './support/ops.ts';
import { apiServerOf, tcpProxy, throughProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { tempDir } from '../local/temp-dir.ts';

const GRACE_SECONDS = 20;
const WAVE_1 = 30;
const WAVE_2 = 10;
const request = (i: number) => ({
  turlinfo: `s3://in/${i}.tgz`,
  iuid: `${(0x10000 + i).toString(16)}-shutdown-${i}`,
  oname: 'org',
  sname: `src${i % 3}`,
});

let h: Harness | undefined;
let sink: Awaited<ReturnType<typeof heldSink>> | undefined;
let next: FunctionProcess | undefined;
let proxy: TcpProxy | undefined;
// The harness stops its sources and Broker first: the process that took the
// Broker's deliveries is stopped only once nothing can be sent to it.
afterEach(async () => {
  try {
    await h?.stop();
  } finally {
    await next?.stop();
    sink?.close();
    await proxy?.close();
    h = undefined;
    sink = undefined;
    next = undefined;
    proxy = undefined;
  }
});

/** The first run, moved by module results up to its last module. */
async function firstRunAtLastModule(h: Harness): Promise<string> {
  const started = await post(h.url(), request(0));
  expect(started.status).toBe(200);
  const run = String(started.body.run);
  for (const module of ['grayscale', 'binarization']) {
    expect((await post(h.url(), { runname: run, modulename: module, moduleresult: 'success' })).status).toBe(200);
  }
  return run;
}

/** The first answer of the burst, which must have been accepted. */
function answers1Early(a: Answer): Answer {
  expect(a.status, 'the first answer of the burst').toBe(200);
  return a;
}

function exitOf(fn: FunctionProcess): Promise<{ code: number | null; signal: string | null; at: number }> {
  return new Promise((resolve) => fn.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
}

/** SIGTERM to `fn` while something is held: it exits 0, and only once the grace period is over. */
async function exitsAfterGrace(
  fn: FunctionProcess,
  exited: ReturnType<typeof exitOf>,
  graceSeconds: number,
): Promise<void> {
  const sigtermAt = Date.now();
  fn.child.kill('SIGTERM');
  const exit = await exited;
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(exit.at - sigtermAt, 'waited for the grace period').toBeGreaterThanOrEqual(graceSeconds * 1000);
}

describe('SIGTERM during a burst', () => {
  it(
    'in flight finishes, new runs get 503 while draining, exit 0 in the grace period; nothing accepted is lost',
    { timeout: 300_000 },
    async () => {
      sink = await heldSink();
      const signalled = { url: 'none' };
      // The ApiServerSource runs throughout, through the Broker, as on a cluster.
      h = await cascadeHarness({
        modules: successScenario(300),
        env: { K_SINK: sink.url, CASCADE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), LOG_LEVEL: 'info' },
        // A delivery sent to the draining process as its server closes gets no answer; the Broker sends it again
        // to the new one. In a pod, queue-proxy holds it instead: the function is signalled directly here.
        tolerated: (a) => a.status === undefined && a.target.startsWith(signalled.url),
      });
      const fn = h.fns[0]!;
      const exited = exitOf(fn);

      // The first run's last module result ends it; the reply does not wait
      // for its run-end event, which the sink holds: the send is in flight
      // until the sink is released.
      const first = await firstRunAtLastModule(h);
      const lastAnswer = await send(h.url(), { runname: first, modulename: 'diff', moduleresult: 'success' });
      expect(
        [lastAnswer.status, lastAnswer.error],
        'the result that ended the run, answered while the sink holds its event',
      ).toEqual([200, undefined]);
      await waitFor(() => sink!.received.some((e) => e.subject === first), {
        message: 'the first run-end event reached the sink',
      });

      // A burst; SIGTERM as soon as its first answer arrives.
      const wave1: Promise<Answer>[] = Array.from({ length: WAVE_1 }, (_, i) => send(h!.url(), request(1 + i)));
      await Promise.race(wave1);
      const sigtermAt = Date.now();
      signalled.url = fn.url;
      fn.child.kill('SIGTERM');
      // As Knative routes around a draining pod: a new process takes the Broker's deliveries.
      next = await startFunction(h.env);
      h.broker.setAddresses('Service/cascade', [next.url]);

      // Draining: not ready, new run requests refused with 503.
      await expect
        .poll(async () => (await fetch(`${h!.url()}/ready`)).status, { timeout: 10_000, interval: 50 })
        .toBe(503);
      const wave2 = await Promise.all(
        Array.from({ length: WAVE_2 }, (_, i) => send(h!.url(), request(1 + WAVE_1 + i))),
      );
      expect(wave2.map((a) => `${a.status} ${String(a.body.error)}`)).toEqual(
        Array<string>(WAVE_2).fill('503 shutting down: send the run request again'),
      );
      // Module results still move the runs in flight while draining.
      const moving = String(answers1Early(await Promise.race(wave1)).body.run);
      const result = await send(h.url(), { runname: moving, modulename: 'grayscale', moduleresult: 'success' });
      expect([result.status, result.body.error]).toEqual([200, undefined]);
      expect(fn.child.exitCode, 'still draining while a run-end event is being sent').toBe(null);

      sink.release();
      const exit = await exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.at - sigtermAt, 'exited within the grace period').toBeLessThan(GRACE_SECONDS * 1000);
      // shutdown() drained before the runtime closed its server and exited.
      expect(fn.output()).toContain('drained: every request in flight finished');
      expect(fn.output(), 'the run-end event in flight at SIGTERM was sent').toContain(
        'drained: every run-end event being sent was sent',
      );
      expect(
        await fetch(`${h.url()}/ready`).then(
          (r) => r.status,
          () => 'refused',
        ),
        'the server is closed',
      ).toBe('refused');

      const answers1 = await Promise.all(wave1);
      expect(
        answers1.map((a) => a.status).filter((s) => s !== 200 && s !== 503),
        `every run request of the burst answered 200 or 503: ${JSON.stringify(answers1.filter((a) => a.status !== 200 && a.status !== 503))}`,
      ).toEqual([]);

      // The new process; the sender sends again every run request not answered 200.
      const all = [...answers1, ...wave2];
      const resend = all.flatMap((a, i) => (a.status === 200 ? [] : [request(1 + i)]));
      const again = await Promise.all(resend.map((r) => send(next!.url, r)));
      expect(again.map((a) => a.status)).toEqual(resend.map(() => 200));

      const total = 1 + WAVE_1 + WAVE_2;
      const runs = await waitFor(
        async () => {
          const list = await h!.listRuns();
          return list.length === total && list.every((r) => r.status?.notified) ? list : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 1000, message: `${total} runs ended` },
      );
      expect(
        runs.filter((r) => r.status?.phase !== 'Succeeded').map((r) => `${r.metadata.name} ${r.status?.phase}`),
      ).toEqual([]);
      expect(runs.map((r) => r.spec.pid).sort()).toEqual(
        Array.from({ length: total }, (_, i) => request(i).iuid).sort(),
      );
      expect(h.jobs.size).toBe(total * 3);
      expect(
        [...h.jobs].filter(([, byUid]) => byUid.size !== 1).map(([name]) => name),
        'no Job created twice',
      ).toEqual([]);
      await expect
        .poll(async () => (await h!.operator()).status, COUNTERS_SETTLE)
        .toMatchObject({ active: 0, succeeded: total, failed: 0, result: 'Success' });
      expect(new Set(sink.received.map((e) => e.subject))).toEqual(new Set(runs.map((r) => r.metadata.name)));
      expect(serverErrors(h.deliveries), 'every Job event was answered without a 5xx').toEqual([]);
      expect(h.deliveries.givenUp).toEqual([]);

      // Every decision of every run has its one Event, from whichever process
      // wrote it: the start, two hand-offs (named for the module started), the end.
      const core = adminKubeConfig().makeApiClient(CoreV1Api);
      const expected = runs.map((r) => `${r.metadata.name}: ModuleStarted x3, RunSucceeded x1`).sort();
      await expect
        .poll(
          async () => {
            const byRun = new Map<string, Map<string, number>>();
            for (const e of (
              await core.listNamespacedEvent({ namespace: h!.ns, fieldSelector: 'involvedObject.kind=CascadeRun' })
            ).items) {
              const reasons = byRun.get(e.involvedObject.name ?? '') ?? new Map<string, number>();
              reasons.set(e.reason ?? '', (reasons.get(e.reason ?? '') ?? 0) + 1);
              byRun.set(e.involvedObject.name ?? '', reasons);
            }
            return [...byRun]
              .map(
                ([run, r]) =>
                  `${run}: ${[...r]
                    .sort()
                    .map(([k, n]) => `${k} x${n}`)
                    .join(', ')}`,
              )
              .sort();
          },
          { timeout: 30_000, interval: 1000 },
        )
        .toEqual(expected);
    },
  );

  it(
    'nothing held: exits 0 as soon as the requests in flight finish, each accepted run has its Job and its Event',
    { timeout: 120_000 },
    async () => {
      h = await cascadeHarness({
        modules: successScenario(300),
        source: false,
        env: { CASCADE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) },
      });
      const fn = h.fns[0]!;
      const exited = exitOf(fn);
      const burst = Array.from({ length: WAVE_1 }, (_, i) => send(h!.url(), request(i)));
      await Promise.race(burst);
      fn.child.kill('SIGTERM');
      const answers = await Promise.all(burst);
      expect(await exited).toMatchObject({ code: 0, signal: null });
      expect(
        answers.filter((a) => a.status !== 200 && a.status !== 503 && a.status !== 0),
        'answered 200, 503, or refused once closed',
      ).toEqual([]);

      const accepted = answers.flatMap((a) => (a.status === 200 ? [String(a.body.run)] : []));
      expect(accepted.length).toBeGreaterThan(0);
      const core = adminKubeConfig().makeApiClient(CoreV1Api);
      const events = (await core.listNamespacedEvent({ namespace: h.ns })).items;
      const started = new Set(events.filter((e) => e.reason === 'ModuleStarted').map((e) => e.involvedObject.name));
      expect(
        accepted.filter((run) => !started.has(run)),
        'accepted runs without their ModuleStarted Event',
      ).toEqual([]);
      const withJob = new Set(
        [...h.jobs.values()].flatMap((byUid) => [...byUid.values()].map((j) => j.metadata?.labels?.[LABEL_RUN])),
      );
      expect(
        accepted.filter((run) => !withJob.has(run)),
        'accepted runs without a Job',
      ).toEqual([]);
    },
  );

  it(
    'a run-end event the sink never takes: exit 0 once the grace period is over, the event left owed for the janitor',
    { timeout: 120_000 },
    async () => {
      const grace = 3;
      sink = await heldSink();
      h = await cascadeHarness({
        modules: successScenario(0).slice(0, 1),
        source: false,
        env: { K_SINK: sink.url, CASCADE_SHUTDOWN_GRACE_SECONDS: String(grace), LOG_LEVEL: 'info' },
      });
      const fn = h.fns[0]!;
      const exited = exitOf(fn);
      const run = String((await post(h.url(), request(0))).body.run);
      expect(
        (await send(h.url(), { runname: run, modulename: 'grayscale', moduleresult: 'success' })).status,
        'answered without the sink',
      ).toBe(200);
      await waitFor(() => sink!.received.length > 0, { message: 'the run-end event reached the sink' });
      await exitsAfterGrace(fn, exited, grace);
      expect(fn.output()).toContain('run-end events still owed at exit: left to the janitor');
      const status = (await h.getRun(run)).status;
      expect(
        [status?.phase, status?.slotReleased, status?.notified],
        'ended and its slot released, its event owed',
      ).toEqual(['Succeeded', true, false]);
    },
  );

  it(
    'a request that does not finish (the API server stopped answering): exit 0 once the grace period is over, the request left unanswered',
    { timeout: 120_000 },
    async () => {
      const grace = 3;
      h = await cascadeHarness({ modules: successScenario(0), source: false });
      proxy = await tcpProxy(apiServerOf(h.env.KUBECONFIG!));
      next = await startFunction({
        ...h.env,
        KUBECONFIG: throughProxy(h.env.KUBECONFIG!, proxy),
        CASCADE_SHUTDOWN_GRACE_SECONDS: String(grace),
        LOG_LEVEL: 'info',
      });
      const exited = exitOf(next);
      proxy.stall();
      const stuck = send(next.url, request(1));
      await waitFor(() => proxy!.stalled() > 0, { message: 'the run request waits on the API server' });
      await exitsAfterGrace(next, exited, grace);
      expect(next.output()).toContain('grace period over with requests in flight');
      expect((await stuck).status, 'the request cut at exit is not answered: its sender sends it again').toBe(0);
      expect(await h.listRuns(), 'nothing reached the API server').toEqual([]);
    },
  );

  it(
    "an uncaught exception: logged, drained, exit 1 (not the runtime's silent exit 0)",
    { timeout: 120_000 },
    async () => {
      // Injected into the function process: SIGUSR2 throws from a timer.
      const dir = tempDir('cascade-crash-');
      const inject = join(dir, 'crash-on-sigusr2.mjs');
      writeFileSync(
        inject,
        "process.on('SIGUSR2', () => setTimeout(() => { throw new Error('boom: injected by the test'); }, 0));\n",
      );
      h = await cascadeHarness({
        modules: successScenario(0),
        source: false,
        env: { NODE_OPTIONS: `--import=${pathToFileURL(inject).href}` },
      });
      const fn = h.fns[0]!;
      const exited = exitOf(fn);
      expect((await post(h.url(), request(0))).status).toBe(200);
      fn.child.kill('SIGUSR2');
      expect(await exited).toMatchObject({ code: 1, signal: null });
      expect(fn.output()).toContain('boom: injected by the test');
      expect(fn.output()).toContain('uncaught exception');
    },
  );
});
