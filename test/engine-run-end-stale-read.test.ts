// The run-end CloudEvent asked for again, in the same process, with a read
// of the run older than the record that it was sent (README: sent once, then
// `status.notified`; sent again only while owed): a finished Job's event can
// read the run while the outbox is sending, and ask for the send once the
// outbox is done. On the real API server, with the engine as the function
// wires it (an outbox, a sink that holds the first send until the test lets
// it go): the late ask reads the run again and sends nothing; a run marked
// owed again (`notified: false`) is sent again by the same process.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CascadeRun } from '../shared/api/cascade-run.ts';
import type { RunEndEvent } from '../shared/api/events.ts';
import { parseConfig } from '../shared/config.ts';
import { acceptModuleResult } from '../shared/engine/entry/accept-result.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { sendRunEndEvent } from '../shared/engine/run/finish-run.ts';
import { outbox } from '../shared/engine/process/outbox.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { connectStore } from '../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, type Harness } from './support/cascade-harness.ts';
import { janitorEngine } from '../shared/engine/profiles.ts';

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: [imageModule('only', {}, { delayMs: 600_000 })], replicas: 0, source: false });
});
afterAll(async () => {
  await h?.stop();
});

function engine() {
  const parsed = parseConfig({ ...h.env, K_SINK: 'http://127.0.0.1:9/held-by-this-test' });
  if (!parsed.ok) throw new Error(parsed.reason);
  const log = pino({ level: 'silent' });
  const sent: RunEndEvent[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const base: EngineDeps = janitorEngine({
    config: parsed.value,
    store: connectStore(parsed.value.namespace, DEFAULT_RETRY, h.env.KUBECONFIG),
    log,
    now: () => new Date(),
    notify: async (event) => {
      await held;
      sent.push(event);
      return true;
    },
  });
  // The janitor's parts but the function's outbox: the send happens after the call returns.
  const deps: EngineDeps = { ...base, outbox: outbox(log) };
  return { deps, sent, release };
}

describe('a run-end event asked for again with a read older than its record', () => {
  it('is not sent twice by the process that sent it, and is sent again when the run owes it again', async () => {
    const { deps, sent, release } = engine();
    const started = await startRun(deps, { turlinfo: 's3://in/x.tgz', iuid: 'stale1' });
    if (started.kind !== 'accepted') throw new Error(`run request not accepted: ${JSON.stringify(started)}`);
    const name = String(started.body.run);
    expect(
      await acceptModuleResult(deps, { runname: name, modulename: 'only', moduleresult: 'failure' }),
    ).toMatchObject({ kind: 'accepted', body: { phase: 'Failed' } });

    // Read while the send is held: ended, its slot released, the event still owed.
    const stale = await h.getRun(name);
    expect(stale.status).toMatchObject({ phase: 'Failed', slotReleased: true, notified: false });
    expect(deps.outbox!.running()).toHaveLength(1);
    release();
    expect(await deps.outbox!.drain(60_000)).toBe(0);
    expect(sent.map((e) => e.type)).toEqual(['net.cascade.run.failed.v1']);
    expect((await h.getRun(name)).status?.notified).toBe(true);

    // The late ask, with that read: nothing sent.
    await sendRunEndEvent(deps, stale, 'Failed');
    expect(await deps.outbox!.drain(60_000)).toBe(0);
    expect(sent).toHaveLength(1);

    // Owed again (as an operator may mark it): the same process sends it again, same id, and records it.
    const now = await h.getRun(name);
    await h.custom.replaceNamespacedCustomObjectStatus({
      ...G,
      namespace: h.ns,
      plural: 'cascaderuns',
      name,
      body: { ...now, status: { ...now.status, notified: false } } as CascadeRun,
    });
    await sendRunEndEvent(deps, stale, 'Failed');
    expect(await deps.outbox!.drain(60_000)).toBe(0);
    expect(sent.map((e) => e.id)).toEqual([sent[0]!.id, sent[0]!.id]);
    expect((await h.getRun(name)).status?.notified).toBe(true);
  });
});
