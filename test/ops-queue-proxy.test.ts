// Knative Serving's queue-proxy (local/knative/queue-proxy/, built from
// knative.dev/serving v0.50.0) in front of the function, configured from
// knative/service.yaml as Knative configures it in a pod: the kubelet's
// readiness probe answered through it from the function's /ready,
// containerConcurrency enforced (10 x concurrency queued, then 503), the
// termination of a pod (queue-proxy drains on SIGTERM while the function's
// preStop hook waits on /wait-for-drain, then the function gets SIGTERM; on
// the Service of each deploy path, within its terminationGracePeriodSeconds), and
// its own Prometheus metrics after a known set of requests. A holding proxy
// between queue-proxy and the function keeps chosen requests in flight.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { repoRoot } from '../local/cluster/paths.ts';
import { funcService, type FuncYaml } from './support/func-service.ts';
import { DEFAULT_REVISION_TIMEOUT_SECONDS } from '../local/knative/queue-proxy/env.ts';
import {
  KUBE_PROBE_HEADERS,
  readService,
  startQueueProxy,
  type QueueProxy,
} from '../local/knative/queue-proxy/queue-proxy.ts';
import { tempDir } from '../local/temp-dir.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, type Harness, QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import { HOLD_HEADER, holdingProxy, type HoldingProxy } from './support/holding-proxy.ts';
import { waitFor } from './support/kube.ts';
import { parseMetrics, promtoolCheck, samples, scrape, send, type Answer, type Sample } from './support/ops.ts';

let h: Harness | undefined;
let hold: HoldingProxy | undefined;
let qp: QueueProxy | undefined;
afterEach(async () => {
  await qp?.stop('SIGKILL');
  hold?.release();
  await h?.stop();
  hold?.close();
  h = undefined;
  hold = undefined;
  qp = undefined;
});

const request = (i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: `qp-${i}`, oname: 'org', sname: 'src' });
const oneModule = successScenario(0).slice(0, 1);

/** What the kubelet sees when it probes queue-proxy's readiness. */
async function probe(qp: QueueProxy, timeoutMs = 15_000): Promise<string> {
  // cut as the kubelet cuts its probe; queue-proxy may hold one for 10 s while it retries the function's /ready
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(qp.url, { headers: KUBE_PROBE_HEADERS, signal });
    return `${res.status} ${await res.text()}`.trim();
  } catch {
    return signal.aborted ? 'no answer' : 'refused';
  }
}

/** The function, and queue-proxy in front of it through a holding proxy. */
async function heldFunction(
  containerConcurrency?: number,
  serviceFile?: string,
): Promise<{ h: Harness; hold: HoldingProxy; qp: QueueProxy }> {
  h = await cascadeHarness({ modules: oneModule, source: false });
  hold = await holdingProxy(Number(new URL(h.fns[0]!.url).port));
  qp = await startQueueProxy({ userPort: hold.port, namespace: h.ns, containerConcurrency, serviceFile });
  return { h, hold, qp };
}

/** A run request through queue-proxy, held in flight until hold.release(). */
async function heldRequest(qp: QueueProxy, hold: HoldingProxy, i: number): Promise<{ answer: Promise<Answer> }> {
  const answer = send(qp.url, request(i), { [HOLD_HEADER]: '1' });
  await waitFor(() => hold.held() === 1, { message: 'the request is held' });
  return { answer };
}

/** The Service `func deploy` makes from func.yaml, written to a file for queue-proxy's environment. */
function funcServiceFile(): string {
  const file = join(tempDir('cascade-func-service-'), 'service.yaml');
  writeFileSync(file, dump(funcService(load(readFileSync(join(repoRoot, 'func.yaml'), 'utf8')) as FuncYaml)));
  return file;
}

const exitOf = (child: { once: (e: 'exit', f: (code: number | null) => void) => unknown }) =>
  new Promise<number | null>((r) => child.once('exit', r));

/** Sum of the samples of `name` by one label. */
function byLabel(all: Sample[], name: string, label: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const s of samples(all, name)) sums[s.labels[label] ?? ''] = (sums[s.labels[label] ?? ''] ?? 0) + s.value;
  return sums;
}

describe('queue-proxy in front of the function', QUEUE_PROXY_TEST, () => {
  it("the readiness probe goes through it and follows the function's /ready: ready, then not once the function drains", async () => {
    h = await cascadeHarness({ modules: oneModule, source: false, queueProxy: {} });
    const fn = h.fns[0]!;
    expect(await probe(h.queueProxy!)).toBe('200 queue');
    expect((await post(h.url(), request(0))).status).toBe(200);
    const fnExit = exitOf(fn.child);
    fn.child.kill('SIGTERM');
    // No readiness periodSeconds (both deploy paths): queue-proxy probes the
    // function aggressively, retrying a failed /ready every 50 ms for up to 10 s
    // before it answers the kubelet 503 (knative/serving pkg/queue/readiness).
    const failing = performance.now();
    await expect.poll(() => probe(h!.queueProxy!), { timeout: 30_000, interval: 50 }).toBe('503');
    expect(performance.now() - failing, 'the aggressive retries before a failure is reported').toBeGreaterThanOrEqual(
      9_000,
    );
    expect(await fnExit.then(() => probe(h!.queueProxy!)), 'the function is gone').toBe('503');
  });

  it('containerConcurrency 1: one request in flight, 10 queued, the rest answered 503 by queue-proxy; the queued ones are served', async () => {
    const { qp, hold } = await heldFunction(1);
    const { answer: held } = await heldRequest(qp, hold, 0);

    const settled: Answer[] = [];
    const burst = Array.from({ length: 15 }, (_, i) => send(qp.url, request(1 + i)).then((a) => (settled.push(a), a)));
    await expect.poll(() => settled.length, { timeout: 30_000, interval: 50 }).toBe(5);
    expect(settled.map((a) => `${a.status} ${String(a.body.text).trim()}`)).toEqual(
      Array<string>(5).fill('503 pending request queue full'),
    );
    expect(await probe(qp), 'probes are not queued').toBe('200 queue');

    hold.release();
    expect((await held).status).toBe(200);
    const answers = await Promise.all(burst);
    expect(answers.filter((a) => a.status === 200).length, 'the 10 queued were served').toBe(10);
    const served = [0, ...answers.flatMap((a, i) => (a.status === 200 ? [1 + i] : []))];
    expect((await h!.listRuns()).map((r) => r.spec.pid).sort()).toEqual(served.map((i) => request(i).iuid).sort());
  });

  // The Service of each deploy path: knative/service.yaml, and the one `func
  // deploy` makes from func.yaml (no timeoutSeconds: Knative's 300 s). Knative
  // makes timeoutSeconds the pod's terminationGracePeriodSeconds: the drain,
  // then the function's own shutdown, must end within it.
  it.each([
    ['kubectl apply -k knative/', () => join(repoRoot, 'knative/service.yaml')],
    ['func deploy', funcServiceFile],
  ])(
    'SIGTERM as in a pod (%s): probes fail at once, the request in flight and new ones are served until it has drained, then both exit 0 within terminationGracePeriodSeconds',
    async (path, serviceFile) => {
      const file = serviceFile();
      const grace = readService(file).spec?.template?.spec?.timeoutSeconds ?? DEFAULT_REVISION_TIMEOUT_SECONDS;
      const { h, qp, hold } = await heldFunction(undefined, file);
      const fn = h.fns[0]!;
      const { answer: held } = await heldRequest(qp, hold, 0);
      const qpExit = exitOf(qp.child);
      const fnExit = exitOf(fn.child);

      // The kubelet: SIGTERM to queue-proxy, and the function's preStop hook waits for the drain.
      const t0 = performance.now();
      qp.child.kill('SIGTERM');
      const drained = qp.waitForDrain().then((status) => ({ status, fnRunning: fn.child.exitCode === null }));
      // a probe that hangs on a loaded machine is cut, and the next one sent
      await expect.poll(() => probe(qp, 2000), { timeout: 10_000, interval: 50 }).toBe('503 shutting down');
      // Until the endpoints drop the pod, requests still arrive and are served.
      expect((await post(qp.url, request(1))).status).toBe(200);
      const lastRequest = performance.now();
      hold.release();
      expect((await held).status, 'the request in flight at SIGTERM finished').toBe(200);

      expect(await drained, 'drained (30 s after the last request), the function still running').toEqual({
        status: 200,
        fnRunning: true,
      });
      const drainedAt = performance.now();
      // The preStop hook has returned: the kubelet sends SIGTERM to the function.
      fn.child.kill('SIGTERM');
      expect([await qpExit, await fnExit]).toEqual([0, 0]);
      const ended = performance.now();
      expect(await probe(qp)).toBe('refused');
      expect((await h.listRuns()).map((r) => r.spec.pid).sort()).toEqual([request(0).iuid, request(1).iuid]);

      const quiet = (drainedAt - lastRequest) / 1000;
      expect(quiet, "queue-proxy's quiet period").toBeGreaterThanOrEqual(29);
      expect((ended - drainedAt) / 1000, "the function's shutdown after its SIGTERM, within its grace").toBeLessThan(
        25,
      );
      expect(
        (ended - t0) / 1000,
        `the whole termination within terminationGracePeriodSeconds (${grace} s)`,
      ).toBeLessThan(grace);
      process.stderr.write(
        `[shutdown budget] ${path}: drain ${((drainedAt - t0) / 1000).toFixed(1)} s, function ${((ended - drainedAt) / 1000).toFixed(2)} s, total ${((ended - t0) / 1000).toFixed(1)} s of ${grace} s\n`,
      );
    },
  );

  it('one per machine: a second queue-proxy waits for the lock the first holds, and starts once the first has exited', async () => {
    h = await cascadeHarness({ modules: oneModule, source: false, queueProxy: {} });
    const first = h.queueProxy!;
    const userPort = Number(new URL(h.fns[0]!.url).port);
    await expect(startQueueProxy({ userPort, namespace: h.ns, lockWaitSeconds: 1, log: () => {} })).rejects.toThrow(
      /another queue-proxy held .* \(pid \d+, started by pid \d+/,
    );
    const waiting: string[] = [];
    const second = startQueueProxy({ userPort, namespace: h.ns, log: (m) => waiting.push(m) });
    await waitFor(() => waiting.length > 0, { message: 'the second says it waits' });
    expect(waiting[0]).toMatch(/ports 8022 and 9090 are held by another queue-proxy \(pid \d+/);
    expect(await first.stop('SIGKILL')).toBe(null);
    qp = await second;
    expect(await probe(qp)).toBe('200 queue');
    expect((await post(qp.url, request(0))).status).toBe(200);
  });

  it('its metrics after a known set of requests: invocations by status, probes not counted, parsed by promtool', async () => {
    h = await cascadeHarness({ modules: oneModule, source: false, queueProxy: {} });
    for (let i = 0; i < 3; i++) expect((await post(h.url(), request(i))).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await post(h.url(), { turlinfo: 's3://in/x.tgz' })).status).toBe(400);
    for (let i = 0; i < 4; i++) expect(await probe(h.queueProxy!)).toBe('200 queue');

    const text = await scrape(h.queueProxy!.metricsUrl);
    const all = parseMetrics(text);
    expect(byLabel(all, 'kn_serving_invocation_duration_seconds_count', 'http_response_status_code')).toEqual({
      200: 3,
      400: 2,
    });
    expect(byLabel(all, 'http_server_request_duration_seconds_count', 'http_response_status_code')).toEqual({
      200: 3,
      400: 2,
    });
    expect(samples(all, 'kn_serving_queue_depth').length).toBe(1);
    // parses; the one lint finding is OpenTelemetry's Go runtime gauge, not Cascade's nor Knative's
    expect(await promtoolCheck(text)).toEqual({
      code: 3,
      problems: ['go_goroutine_count non-histogram and non-summary metrics should not have "_count" suffix'],
    });
  });
});
