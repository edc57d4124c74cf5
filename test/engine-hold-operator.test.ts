// holdOperator (shared/engine/operator/hold-operator.ts) against the real API server,
// acting as the function's ServiceAccount, when the operator changes between
// its read and the finalizer write: a write from a stale copy is refused
// (409) and decided again from a fresh read, so nothing written meanwhile is
// lost; an operator deleted meanwhile is gone (the CONFIG_PATH file) or being
// deleted (503). And the one window the finalizer cannot close: the operator
// deleted and let go between a run request's read of it and the run's start:
// the run goes on, and no counter is left to keep it.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CascadeAutoOperator } from '../shared/api/cascade-auto-operator.ts';
import { FINALIZER } from '../shared/api/group.ts';
import { parseConfig, type Config } from '../shared/config.ts';
import { holdOperator } from '../shared/engine/operator/hold-operator.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { connectStore } from '../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import type { Store } from '../shared/kube/store.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascadeautooperators' };
let h: Harness;
let real: Store;
let config: Config;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(0), replicas: 0, source: false });
  const parsed = parseConfig(h.env);
  if (!parsed.ok) throw new Error(parsed.reason);
  config = parsed.value;
  real = connectStore(parsed.value.namespace, DEFAULT_RETRY, h.env.KUBECONFIG);
});
afterAll(async () => {
  await h?.stop();
});

/** The real Store, with `meanwhile` done once right after the first read of the operator. */
function changedAfterFirstRead(meanwhile: () => Promise<unknown>): { store: Store; reads: () => number } {
  let reads = 0;
  const store: Store = {
    ...real,
    getOperator: async (name) => {
      const op = await real.getOperator(name);
      if (++reads === 1) await meanwhile();
      return op;
    },
  };
  return { store, reads: () => reads };
}

const deps = (store: Store) => ({ store, config, log: pino({ level: 'silent' }) });
const ops = () => ({ ...G, namespace: h.ns, name: SCENARIO });
const finalizers = async () => (await h.operator()).metadata.finalizers ?? [];

async function recreate(extra: Partial<CascadeAutoOperator['metadata']> = {}): Promise<void> {
  const op = await h.operator().catch(() => undefined);
  if (op) {
    await h.custom
      .patchNamespacedCustomObject({ ...ops(), body: [{ op: 'remove', path: '/metadata/finalizers' }] })
      .catch(() => undefined);
    await h.custom.deleteNamespacedCustomObject(ops()).catch(() => undefined);
  }
  await h.custom.createNamespacedCustomObject({
    ...G,
    namespace: h.ns,
    body: {
      apiVersion: 'cascade.cascade.net/v1alpha1',
      kind: 'CascadeAutoOperator',
      metadata: { name: SCENARIO, ...extra },
      spec: { scenarioconfig: { cascademodules: successScenario(0) } },
    },
  });
}

describe('holding the CascadeAutoOperator before a run', () => {
  it('a change written meanwhile is kept: the stale write is refused and done again from a fresh read', async () => {
    await recreate();
    const { store, reads } = changedAfterFirstRead(() =>
      h.custom.patchNamespacedCustomObject({
        ...ops(),
        body: [{ op: 'add', path: '/metadata/labels', value: { edited: 'meanwhile' } }],
      }),
    );
    const held = await holdOperator(deps(store));
    expect(held).toMatchObject({ op: { metadata: { finalizers: [FINALIZER], labels: { edited: 'meanwhile' } } } });
    expect(reads()).toBe(2);
    expect(await finalizers()).toEqual([FINALIZER]);
    expect((await h.operator()).metadata.labels).toEqual({ edited: 'meanwhile' });
  });

  it('held already: no write', async () => {
    const before = (await h.operator()).metadata.resourceVersion;
    expect(await holdOperator(deps(real))).toMatchObject({ op: { metadata: { resourceVersion: before } } });
    expect((await h.operator()).metadata.resourceVersion).toBe(before);
  });

  it('deleted meanwhile: gone, so no operator to hold (the scenario comes from the file)', async () => {
    await recreate();
    const { store } = changedAfterFirstRead(() => h.custom.deleteNamespacedCustomObject(ops()));
    expect(await holdOperator(deps(store))).toEqual({ op: undefined });
  });

  it('deleted meanwhile while another finalizer keeps it: being deleted, no new runs', async () => {
    await recreate({ finalizers: ['test.cascade.net/keep'] });
    const { store } = changedAfterFirstRead(() => h.custom.deleteNamespacedCustomObject(ops()));
    expect(await holdOperator(deps(store))).toEqual({
      kind: 'unavailable',
      reason: `CascadeAutoOperator ${SCENARIO} is being deleted: no new runs`,
    });
    expect(await finalizers()).toEqual(['test.cascade.net/keep']);
  });
});

describe('a run request racing the deletion of its operator', () => {
  it('deleted and let go after the run request read it: the run goes on', async () => {
    await recreate({ finalizers: [FINALIZER] });
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write: (chunk: Buffer, _e, done) => {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    // As the janitor would, seeing no run yet: the operator is deleted and its finalizer removed, before the run exists.
    const letGo = async () => {
      await h.custom.deleteNamespacedCustomObject(ops());
      await h.custom.patchNamespacedCustomObject({ ...ops(), body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    };
    const store: Store = {
      ...real,
      createRun: async (run) => {
        await letGo();
        return real.createRun(run);
      },
    };
    const outcome = await startRun(
      janitorEngine({ ...deps(store), log, now: () => new Date(), notify: async () => false }),
      { turlinfo: 's3://in/r.tgz', iuid: 'race1-0001' },
    );
    expect(outcome).toMatchObject({
      kind: 'accepted',
      body: { run: `${SCENARIO}-race1`, scenario: `CascadeAutoOperator/${SCENARIO}` },
    });
    await expect(h.operator()).rejects.toMatchObject({ code: 404 });
    // Without a limit the start writes nothing on the operator: the run goes on, counted by no one, as its operator is gone.
    expect((await h.getRun(`${SCENARIO}-race1`)).status?.phase).toMatch(/^(Pending|Running)$/);
    const errors = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
    expect(errors).toEqual([]);
  });
});
