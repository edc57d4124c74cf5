// Each input format advances a run: a binary CloudEvent starts it, a
// structured CloudEvent and a legacy HTTP body report module results, and an
// ApiServerSource Job event ends it. The pods run for a minute, so nothing but
// these inputs can move the run; no ApiServerSource stand-in runs here. The
// replica that made the last Job stops before it ends, so its watch of its
// Jobs does not move the run (shared/engine/sync/own-jobs.ts): the Job's event,
// sent to the other replica, does. A
// CloudEvent is answered 200 with an empty body (a Broker would read a body as
// a reply event); the plain body gets its JSON reply.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { imageModule } from './fixtures/scenarios.ts';
import {
  binaryEvent,
  cascadeHarness,
  post,
  SCENARIO,
  structuredEvent,
  type Harness,
} from './support/cascade-harness.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const RUN = `${SCENARIO}-abcde`;
const step = async (name: string) => (await h!.getRun(name)).status?.modules?.map((m) => m.phase).join(',');

describe('input formats', () => {
  it('binary CloudEvent, structured CloudEvent, plain body and ApiServerSource event each move the run', async () => {
    const modules = [
      imageModule('a', {}, { delayMs: 60_000 }),
      imageModule('b', {}, { delayMs: 60_000 }),
      imageModule('c', {}, { delayMs: 10_000 }),
    ];
    h = await cascadeHarness({ modules, from: 'file', source: false, replicas: 2 });

    const start = binaryEvent('net.cascade.run.requested.v1', { turlinfo: 's3://in/x.tgz', iuid: 'abcdef12' });
    expect(await post(h.url(), start.body, start.headers)).toEqual({ status: 200, body: { text: '' } });
    // The reply comes once the run exists; its first Job follows.
    await waitFor(async () => (await step(RUN)) === 'Running,Pending,Pending' || undefined, {
      message: 'the first step running',
    });

    const a = structuredEvent('net.cascade.module.finished.v1', {
      runname: RUN,
      modulename: 'a',
      moduleresult: 'success',
    });
    expect(await post(h.url(), a.body, a.headers)).toEqual({ status: 200, body: { text: '' } });
    expect(await step(RUN)).toBe('Succeeded,Running,Pending');

    expect(await post(h.url(), { runname: RUN, modulename: 'b', moduleresult: 'done' })).toMatchObject({
      status: 200,
      body: { verdict: 'applied' },
    });
    expect(await step(RUN)).toBe('Succeeded,Succeeded,Running');
    expect(await h.fns[0]!.stop('SIGTERM')).toBe(0);

    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    const jobC = await waitFor(
      async () => {
        const job = await batch.readNamespacedJob({ name: `${SCENARIO}-c-abcde`, namespace: h!.ns });
        return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? job : undefined;
      },
      { message: 'Job c complete' },
    );
    expect(await step(RUN)).toBe('Succeeded,Succeeded,Running');
    const ev = binaryEvent('dev.knative.apiserver.resource.update', jobC);
    expect(await post(h.url(1), ev.body, ev.headers)).toEqual({ status: 200, body: { text: '' } });
    const run = await h.waitEnded(RUN);
    expect(run.status).toMatchObject({ phase: 'Succeeded', result: ['a: success\n', 'b: done\n'] });
  });
});
