// Cascade behind the Knative Broker stand-in (local/stand-ins/broker/, with
// knative/'s Triggers and delivery settings, backoff waits scaled down), the
// way events reach it on a cluster: run requests and module results sent to
// the Broker as CloudEvents, Job changes from the ApiServerSource stand-in to
// the Broker. A clean run has no failed delivery and no retry (the function
// answers a CloudEvent 200 with an empty body, which the Broker's filter takes
// as delivered); a poison event reaches the dead-letter sink after exactly
// the attempts its status calls for (400: one; 500: 1 + the Trigger's retry),
// with Knative's error extensions, and creates nothing; a transient 503 is
// retried and the run completes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_FINISHED, RUN_REQUESTED } from '../shared/api/events.ts';
import { knativeConfig } from '../local/stand-ins/broker/broker.ts';
import { effectiveDelivery } from '../local/stand-ins/broker/delivery.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { brokerTrouble, cascadeHarness, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { flakyProxy, type FlakyProxy } from './support/flaky-proxy.ts';
import { jobsDeletedAndDelivered } from './support/jobs-deleted.ts';
import { adminKubeConfig } from './support/kube.ts';
import { tempDir } from '../local/temp-dir.ts';

const file = join(tempDir('cascade-delivery-'), 'configuration.json');
const retriesOf = (trigger: string) => {
  const { broker, triggers } = knativeConfig();
  return effectiveDelivery(triggers.find((t) => t.name === trigger)!.delivery, broker.delivery).retry!;
};
let h: Harness;
let proxy: FlakyProxy;

beforeAll(async () => {
  writeFileSync(file, JSON.stringify({ cascademodules: successScenario(300) }));
  h = await cascadeHarness({ modules: [], from: 'file', env: { CONFIG_PATH: file }, faults: true });
  proxy = await flakyProxy(h.url());
  h.broker.setAddresses('Service/cascade', [proxy.url]);
});
afterAll(async () => {
  await h?.stop();
  await proxy?.stop();
});

async function everything(): Promise<string[]> {
  const runs = (await h.listRuns()).map((r) => `run/${r.metadata.name}`);
  const jobs = (await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns })).items.map(
    (j) => `job/${j.metadata?.name}`,
  );
  return [...runs, ...jobs].sort();
}

/** What is there now and was not `before`: the earlier runs' Jobs may go meanwhile, as their runs ended. */
async function createdSince(before: string[]): Promise<string[]> {
  return (await everything()).filter((x) => !before.includes(x));
}

/** The Broker's attempts and failures for one event id. */
const of = (id: string) => ({
  attempts: h.broker.attempts.filter((a) => a.id === id).map((a) => [a.route, a.status, a.outcome]),
  failures: h.broker.failures.filter((f) => f.event.attributes.id === id),
  deadLetters: h.deadLetters.received.filter((e) => e.attributes.id === id),
});

const decoded = (data: string | undefined) =>
  JSON.parse(Buffer.from(data ?? '', 'base64').toString()) as { error: string };

describe('delivery through the Broker', () => {
  it('a clean run: every event delivered at its first attempt, nothing failed or dead-lettered', async () => {
    expect(await h.deliver(RUN_REQUESTED, { turlinfo: 's3://in/c.tgz', iuid: 'c1ea0-clean' }, 'clean-run')).toBe(202);
    const run = await h.waitEnded(`${SCENARIO}-c1ea0`);
    expect(run.status?.phase).toBe('Succeeded');
    await jobsDeletedAndDelivered(h, run);
    await h.broker.settled();
    expect(of('clean-run').attempts).toEqual([['cascade-run-requested', 200, 'delivered']]);
    const types = new Set(h.broker.attempts.map((a) => a.type));
    expect(types).toEqual(
      new Set([
        RUN_REQUESTED,
        'dev.knative.apiserver.resource.add',
        'dev.knative.apiserver.resource.update',
        'dev.knative.apiserver.resource.delete',
      ]),
    );
    expect(h.broker.attempts.filter((a) => a.outcome !== 'delivered' || a.status !== 200)).toEqual([]);
    expect([h.broker.failures, h.deadLetters.received, brokerTrouble(h.broker)]).toEqual([[], [], []]);
  });

  it('a module result for an unknown run: 400, dead-lettered after one attempt with the reason, nothing created', async () => {
    const before = await everything();
    await h.deliver(
      MODULE_FINISHED,
      { runname: `${SCENARIO}-nope0`, modulename: 'grayscale', moduleresult: 'success' },
      'poison-400',
    );
    await h.broker.settled();
    const o = of('poison-400');
    expect(o.attempts).toEqual([
      ['cascade-module-finished', 400, 'failed'],
      ['cascade-module-finished dead-letter sink', 202, 'delivered'],
    ]);
    expect(o.failures).toMatchObject([
      { trigger: 'cascade-module-finished', status: 400, attempts: 1, deadLettered: true },
    ]);
    expect(o.deadLetters).toHaveLength(1);
    expect(o.deadLetters[0]!.attributes).toMatchObject({
      type: MODULE_FINISHED,
      knativeerrordest: proxy.url,
      knativeerrorcode: '400',
    });
    expect(decoded(o.deadLetters[0]!.attributes.knativeerrordata)).toEqual({
      error: `unknown run "${SCENARIO}-nope0"`,
    });
    expect(await createdSince(before)).toEqual([]);
  });

  it('a run request while the scenario is unusable: 500, retried as the Trigger says, then dead-lettered; nothing created', async () => {
    const before = await everything();
    writeFileSync(file, '{"cascademodules": [');
    await h.deliver(RUN_REQUESTED, { turlinfo: 's3://in/p.tgz', iuid: 'b0b02-poison' }, 'poison-500');
    await h.broker.settled();
    const o = of('poison-500');
    const retries = retriesOf('cascade-run-requested');
    expect(o.attempts).toEqual([
      ...Array.from({ length: retries }, () => ['cascade-run-requested', 500, 'retry']),
      ['cascade-run-requested', 500, 'failed'],
      ['cascade-run-requested dead-letter sink', 202, 'delivered'],
    ]);
    expect(o.deadLetters.map((e) => e.attributes.knativeerrorcode)).toEqual(['500']);
    expect(decoded(o.deadLetters[0]!.attributes.knativeerrordata).error).toMatch(/^the scenario is not usable: /);
    expect(await createdSince(before)).toEqual([]);
  });

  it('a transient 503 (the pod draining) is retried, and the run completes', async () => {
    writeFileSync(file, JSON.stringify({ cascademodules: successScenario(300) }));
    proxy.failNext(1);
    await h.deliver(RUN_REQUESTED, { turlinfo: 's3://in/t.tgz', iuid: 'd2a1e-transient' }, 'transient');
    const run = await h.waitEnded(`${SCENARIO}-d2a1e`);
    expect(run.status?.phase).toBe('Succeeded');
    await h.broker.settled();
    expect(proxy.refused()).toBe(1);
    expect(of('transient').attempts).toEqual([
      ['cascade-run-requested', 503, 'retry'],
      ['cascade-run-requested', 200, 'delivered'],
    ]);
    expect(of('transient').failures).toEqual([]);
    expect(h.deadLetters.received.map((e) => e.attributes.id).sort()).toEqual(['poison-400', 'poison-500']);
  });
});

describe('a replica gone without a word', () => {
  it('attempts that reach it get no answer and are retried on the other replica; every run completes, nothing fails', async () => {
    const h2 = await cascadeHarness({ modules: successScenario(300), replicas: 2, faults: true });
    try {
      await h2.fns[1]!.stop('SIGKILL');
      const iuids = ['a0001-gone', 'a0002-gone', 'a0003-gone', 'a0004-gone'];
      for (const iuid of iuids)
        expect(await h2.deliver(RUN_REQUESTED, { turlinfo: `s3://in/${iuid}.tgz`, iuid }, iuid)).toBe(202);
      for (const iuid of iuids)
        expect((await h2.waitEnded(`${SCENARIO}-${iuid.slice(0, 5)}`)).status?.phase).toBe('Succeeded');
      await h2.broker.settled();
      const dead = h2.broker.attempts.filter((a) => a.target === h2.fns[1]!.url);
      expect(dead.length, 'attempts sent to the stopped replica').toBeGreaterThan(0);
      expect(dead.every((a) => a.status === undefined && a.outcome === 'retry')).toBe(true);
      expect(
        h2.broker.attempts
          .filter((a) => a.outcome === 'delivered')
          .every((a) => a.target === h2.fns[0]!.url && a.status === 200),
      ).toBe(true);
      expect(Math.max(...h2.broker.attempts.map((a) => a.attempt)), 'a retry goes to the next replica').toBe(2);
      expect([h2.broker.failures, h2.deadLetters.received]).toEqual([[], []]);
    } finally {
      await h2.stop();
    }
  });
});
