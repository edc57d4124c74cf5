// Issue 4: Kubernetes Events on the CascadeRun mark its transitions (module
// started, succeeded, failed, run finished), written by the function under its
// own ServiceAccount, listed by involvedObject and shown by `kubectl describe`.
// Issue 10: one Event per decision (the start, each hand-off, the end), so at
// most one per step transition; its message tells each transition.
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeModule } from '../shared/api/scenario.ts';
import { failSecondScenario, successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, post, SCENARIO, type Harness, QUEUE_PROXY_TEST } from './support/cascade-harness.ts';
import { adminKubeConfig } from './support/kube.ts';
import { kubectl } from './support/ops.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function eventsOf(h: Harness, run: string): Promise<CoreV1Event[]> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const list = await core.listNamespacedEvent({ namespace: h.ns, fieldSelector: `involvedObject.name=${run}` });
  return list.items;
}

const summary = (events: CoreV1Event[]) => events.map((e) => `${e.type} ${e.reason}`).sort();

async function runToEnd(modules: CascadeModule[]) {
  h = await cascadeHarness({ modules: modules, queueProxy: {} });
  const reply = await post(h.url(), { turlinfo: 's3://in/x.tgz', iuid: 'ops-events-1', oname: 'org', sname: 'src' });
  expect(reply.status).toBe(200);
  return h.waitEnded(String(reply.body.run));
}

describe('Kubernetes Events on the CascadeRun', QUEUE_PROXY_TEST, () => {
  it('a run that succeeds: one Event at its start, at each hand-off and at its end (N+1); kubectl describe shows them', async () => {
    const run = await runToEnd(successScenario(200));
    const name = run.metadata.name;
    const expected = [...Array<string>(3).fill('Normal ModuleStarted'), 'Normal RunSucceeded'].sort();
    // Events are written beside the transition, not before the reply: poll.
    await expect.poll(async () => summary(await eventsOf(h!, name)), { timeout: 20_000 }).toEqual(expected);
    const events = await eventsOf(h!, name);
    for (const e of events) {
      expect(e.involvedObject).toMatchObject({
        kind: 'CascadeRun',
        apiVersion: 'cascade.cascade.net/v1alpha1',
        name,
        namespace: h!.ns,
        uid: run.metadata.uid,
      });
      expect(e.message, `${e.reason} has a message`).toBeTruthy();
      expect(e.source?.component).toBe('cascade');
    }
    const modules = events.filter((e) => e.reason === 'ModuleStarted').map((e) => e.message ?? '');
    for (const m of ['grayscale', 'binarization', 'diff'])
      expect(
        modules.some((text) => text.includes(m)),
        `ModuleStarted names ${m}`,
      ).toBe(true);
    // A hand-off's Event tells the module that ended before the one started.
    for (const m of ['grayscale', 'binarization'])
      expect(
        modules.some((text) => text.includes(`module ${m} succeeded; started Job`)),
        `a hand-off tells ${m} ended`,
      ).toBe(true);
    const end = events.find((e) => e.reason === 'RunSucceeded')?.message ?? '';
    expect(end).toMatch(/^module diff succeeded; /);

    const described = await kubectl('describe', 'cascaderun', name, '-n', h!.ns);
    expect(described).toMatch(/^Events:/m);
    const section = described.slice(described.search(/^Events:/m));
    for (const reason of ['ModuleStarted', 'RunSucceeded'])
      expect(section).toMatch(new RegExp(`Normal\\s+${reason}\\s`));
    expect(section).toContain('cascade');
  });

  it('a run that fails at module 2: its end is one Warning RunFailed naming the module', async () => {
    const run = await runToEnd(failSecondScenario(200));
    expect(run.status?.phase).toBe('Failed');
    const name = run.metadata.name;
    await expect
      .poll(async () => summary(await eventsOf(h!, name)), { timeout: 20_000 })
      .toEqual(['Normal ModuleStarted', 'Normal ModuleStarted', 'Warning RunFailed']);
    const failed = (await eventsOf(h!, name)).find((e) => e.reason === 'RunFailed');
    expect(failed?.message, 'the Event names the module that failed').toMatch(/^module fail \(step 2\): /);
    const section = (await kubectl('describe', 'cascaderun', name, '-n', h!.ns)).split(/^Events:/m)[1] ?? '';
    expect(section).toMatch(/Warning\s+RunFailed\s/);
    expect(name.startsWith(SCENARIO)).toBe(true);
  });
});
