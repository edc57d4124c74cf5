// Issue 4: the token bucket in front of the engine. With 1 request a second
// and a burst of 10, a burst of 30 run requests is served up to the burst
// (plus what refilled while it arrived); the rest get 429 with Retry-After,
// create nothing, and are counted (by Cascade, and by Knative's queue-proxy in
// front of it); sent again after Retry-After, one is served.
import { afterEach, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { BatchV1Api } from '@kubernetes/client-node';
import { LABEL_RUN } from '../shared/names.ts';
import { cascadeHarness, sendEvent, type Harness, QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { parseMetrics, scrape, send, value } from './support/ops.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

// 1 a second: the burst would have to take 20 s for every request to be
// served, so a slow machine still sees 429s.
const RATE = 1;
const BURST = 10;
const REQUESTS = 30;
const request = (i: number) => ({ turlinfo: `s3://in/${i}.tgz`, iuid: `ops-rate-${i}`, oname: 'org', sname: 'src' });

describe('rate limit', QUEUE_PROXY_TEST, () => {
  it(`CASCADE_RATE_LIMIT=${RATE}, CASCADE_RATE_BURST=${BURST}: a burst of ${REQUESTS} gets 429 with Retry-After beyond the burst`, async () => {
    h = await cascadeHarness({
      modules: successScenario(0),
      source: false,
      queueProxy: {},
      env: { CASCADE_RATE_LIMIT: String(RATE), CASCADE_RATE_BURST: String(BURST) },
    });
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(h!.url(), request(i))));
    const elapsed = (Date.now() - started) / 1000;

    expect(
      answers.map((a) => a.status).filter((s) => s !== 200 && s !== 429),
      'only 200 and 429',
    ).toEqual([]);
    const served = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    // The full bucket serves the first BURST; tokens refill at RATE a second
    // while the burst arrives (a fraction of one for a burst of local requests).
    expect(served).toBeGreaterThanOrEqual(BURST);
    expect(served).toBeLessThanOrEqual(BURST + Math.floor(RATE * elapsed));
    expect(limited.length).toBe(REQUESTS - served);
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited) {
      expect(a.headers?.get('retry-after'), 'Retry-After in whole seconds').toMatch(/^[1-9]\d*$/);
      expect(a.body.error).toMatch(/rate limit/);
    }

    // A 429 created nothing: one CascadeRun per request served.
    const runs = await h.listRuns();
    expect(runs.map((r) => r.spec.pid).sort()).toEqual(
      answers.flatMap((a, i) => (a.status === 200 ? [request(i).iuid] : [])).sort(),
    );

    const metrics = parseMetrics(await scrape(h.fns[0]!.metricsUrl));
    expect(value(metrics, 'cascade_rate_limited_total')).toBe(limited.length);
    expect(value(metrics, 'response_status', { status: '429', path: '/run' })).toBe(limited.length);
    expect(value(metrics, 'response_status', { status: '200', path: '/run' })).toBe(served);
    const invocations = parseMetrics(await scrape(h.queueProxy!.metricsUrl));
    expect(
      value(invocations, 'kn_serving_invocation_duration_seconds_count', { http_response_status_code: '429' }),
      'queue-proxy saw the 429s',
    ).toBe(limited.length);
    expect(
      value(invocations, 'kn_serving_invocation_duration_seconds_count', { http_response_status_code: '200' }),
    ).toBe(served);

    // As a sender does: wait as long as Retry-After says, send again.
    const wait = Math.max(...limited.map((a) => Number(a.headers?.get('retry-after'))));
    await new Promise((r) => setTimeout(r, wait * 1000));
    const again = answers.findIndex((a) => a.status === 429);
    expect((await send(h.url(), request(again))).status).toBe(200);
  });
});

describe('the token bucket admits new work only', QUEUE_PROXY_TEST, () => {
  it('with the bucket empty, a run request gets 429, while a module result and a Job event of an admitted run are served', async () => {
    h = await cascadeHarness({
      modules: successScenario(600_000),
      source: false,
      queueProxy: {},
      env: { CASCADE_RATE_LIMIT: '1', CASCADE_RATE_BURST: '1' },
    });
    const first = await send(h.url(), request(100));
    expect(first.status).toBe(200);
    const run = String(first.body.run);
    const refused = await send(h.url(), request(101));
    expect([refused.status, refused.body.error], 'the bucket is empty').toEqual([
      429,
      'rate limit exceeded, retry later',
    ]);

    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const listed = () => batch.listNamespacedJob({ namespace: h!.ns, labelSelector: `${LABEL_RUN}=${run}` });
    const [job] = await waitFor(async () => ((await listed()).items.length > 0 ? (await listed()).items : undefined), {
      message: `the first Job of ${run}`,
    });
    expect(job, 'the Job of the admitted run').toBeDefined();
    const status = await sendEvent(h.url(), 'dev.knative.apiserver.resource.update', {
      ...job,
      kind: 'Job',
      apiVersion: 'batch/v1',
    });
    expect(status, 'a Job event is progress').toBe(200);
    const result = await send(h.url(), { runname: run, modulename: 'grayscale', moduleresult: 'success' });
    expect([result.status, result.body.verdict], 'a module result is progress').toEqual([200, 'applied']);
    const cancel = await send(h.url(), { action: 'cancel', runname: run });
    expect([cancel.status, cancel.body.verdict], 'a cancel is progress').toEqual([200, 'cancelled']);
    // At most one token refilled meanwhile: of three run requests at once, two at least are refused.
    const later = await Promise.all([102, 103, 104].map((i) => send(h!.url(), request(i))));
    const refusedLater = later.filter((a) => a.status === 429).length;
    expect(refusedLater, 'new work is still refused').toBeGreaterThanOrEqual(2);

    const metrics = parseMetrics(await scrape(h.fns[0]!.metricsUrl));
    expect(value(metrics, 'cascade_rate_limited_total'), 'only run requests were refused').toBe(1 + refusedLater);
  });
});
