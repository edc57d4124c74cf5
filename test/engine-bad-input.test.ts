// Bad input gets a clear 400 with the reason and creates nothing; a scenario
// being deleted refuses new runs with 503.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import {
  binaryEvent,
  cascadeHarness,
  post,
  SCENARIO,
  structuredEvent,
  type Harness,
} from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(60_000), source: false });
});
afterAll(async () => {
  await h?.stop();
});

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
type Case = [string, unknown, Record<string, string>, number, RegExp];

const ce = (type: string, data: unknown) => binaryEvent(type, data);
const cases: Case[] = [
  ['invalid JSON', '{"iuid": ', {}, 400, /JSON/],
  ['a JSON array', '[1,2]', {}, 400, /must be a JSON object/],
  ['an empty object', {}, {}, 400, /run request: turlinfo: required field is missing/],
  ['iuid missing', { turlinfo: 's3://x' }, {}, 400, /iuid: required field is missing/],
  ['iuid a number', { turlinfo: 's3://x', iuid: 12345 }, {}, 400, /iuid: must be a string/],
  [
    'iuid that cannot make a name',
    { turlinfo: 's3://x', iuid: 'ab_cd-1234' },
    {},
    400,
    /cannot make a valid Kubernetes name/,
  ],
  [
    'a result for an unknown run',
    { runname: 'nope-12345', modulename: 'grayscale', moduleresult: 'success' },
    {},
    400,
    /unknown run "nope-12345"/,
  ],
  [
    'a result without modulename',
    { runname: 'x', moduleresult: 'success' },
    {},
    400,
    /modulename: required field is missing/,
  ],
  [
    'an unknown event type',
    ce('com.example.other', {}).body,
    ce('com.example.other', {}).headers,
    400,
    /unsupported event type/,
  ],
  [
    'a run event with bad data',
    ce('net.cascade.run.requested.v1', { iuid: 1 }).body,
    ce('net.cascade.run.requested.v1', {}).headers,
    400,
    /turlinfo: required field is missing/,
  ],
  [
    'a CloudEvent without source',
    {},
    { 'ce-specversion': '1.0', 'ce-id': '1', 'ce-type': 'net.cascade.run.requested.v1' },
    400,
    /source/,
  ],
  [
    'a structured CloudEvent without type',
    JSON.stringify({ specversion: '1.0', id: '1', source: '/x' }),
    { 'content-type': 'application/cloudevents+json' },
    400,
    /type/,
  ],
  [
    'a Pod from ApiServerSource',
    ce('dev.knative.apiserver.resource.add', { kind: 'Pod', metadata: { name: 'p' } }).body,
    ce('dev.knative.apiserver.resource.add', {}).headers,
    400,
    /must be a Job/,
  ],
];

async function nothingCreated(): Promise<void> {
  const runs = (await h.custom.listNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascaderuns' })) as {
    items: unknown[];
  };
  const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
  expect({ runs: runs.items.length, jobs: jobs.items.length }).toEqual({ runs: 0, jobs: 0 });
}

describe('bad input', () => {
  it.each(cases)('%s is refused with the reason', async (_name, body, headers, status, reason) => {
    const reply = await post(h.url(), body, headers);
    expect(reply.status).toBe(status);
    expect(`${reply.body.error} ${reply.body.message ?? ''}`).toMatch(reason);
    await nothingCreated();
  });

  it('a result for a module the run does not have, or has not reached', async () => {
    const iuid = 'f00d0001';
    expect((await post(h.url(), { turlinfo: 's3://in', iuid })).status).toBe(200);
    const run = `${SCENARIO}-f00d0`;
    // The reply comes once the run exists; its start follows. Taken once the start is written and still.
    let last = '';
    const before = await waitFor(
      async () => {
        const status = (await h.getRun(run)).status;
        const now = JSON.stringify(status);
        const still = now === last && status?.modules?.[0]?.phase === 'Running';
        last = now;
        return still ? now : undefined;
      },
      { intervalMs: 500, message: 'the run started' },
    );
    expect(await post(h.url(), { runname: run, modulename: 'nope', moduleresult: 'success' })).toMatchObject({
      status: 400,
      body: { error: `run "${run}" has no module "nope"` },
    });
    expect(
      await post(
        h.url(),
        structuredEvent('net.cascade.module.finished.v1', { runname: run, modulename: 'diff', moduleresult: 'success' })
          .body,
        { 'content-type': 'application/cloudevents+json' },
      ),
    ).toMatchObject({ status: 400, body: { error: expect.stringMatching(/has not started/) } });
    expect(JSON.stringify((await h.getRun(run)).status)).toBe(before);
    const jobs = await adminKubeConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace: h.ns });
    expect(jobs.items.map((j) => j.metadata?.name)).toEqual([`${SCENARIO}-grayscale-f00d0`]);
  });

  it('refuses new runs with 503 while the CascadeAutoOperator is being deleted', async () => {
    const name = SCENARIO;
    const op = await h.operator();
    await h.custom.replaceNamespacedCustomObject({
      ...G,
      namespace: h.ns,
      plural: 'cascadeautooperators',
      name,
      body: { ...op, metadata: { ...op.metadata, finalizers: ['shutdown.cascade.cascade.net/finalizer'] } },
    });
    await h.custom.deleteNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascadeautooperators', name });
    const reply = await post(h.url(), { turlinfo: 's3://in', iuid: 'beef0001' });
    expect(reply).toMatchObject({ status: 503, body: { error: expect.stringMatching(/being deleted/) } });
    await expect(h.getRun(`${SCENARIO}-beef0`)).rejects.toMatchObject({ code: 404 });
    const after = await h.operator();
    await h.custom.replaceNamespacedCustomObject({
      ...G,
      namespace: h.ns,
      plural: 'cascadeautooperators',
      name,
      body: { ...after, metadata: { ...after.metadata, finalizers: [] } },
    });
  });
});
