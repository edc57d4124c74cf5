// A status write that loses a race (README: "write the status with its
// resourceVersion (on 409: reload and decide again)"), on the real API
// server, acting as the function's ServiceAccount: a module's success result
// is being applied (the next step's Job is created) when another replica
// handles an informational result of the same module, between this one's
// read and its status write. That replica decides from the run alone (a result
// lists no Jobs) and records its result on the running step. The write is
// refused, the engine reloads and applies the success on top of the other
// change: both results are kept, the next Job is created once, the conflict
// is counted in cascade_status_conflicts_total (the engine's hooks wired to
// the function's metrics as functions/cascade/app.ts wires them), and the run
// ends as a clean one.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.ts';
import type { EngineDeps } from '../shared/engine/deps.ts';
import { acceptModuleResult } from '../shared/engine/entry/accept-result.ts';
import { startRun } from '../shared/engine/entry/start-run.ts';
import { connectStore } from '../shared/kube/connect.ts';
import { DEFAULT_RETRY } from '../shared/kube/api-retry.ts';
import type { Store } from '../shared/kube/store.ts';
import { cascadeMetrics } from '../shared/metrics.ts';
import { imageModule } from './fixtures/scenarios.ts';
import { cascadeHarness, COUNTERS_SETTLE, type Harness, SCENARIO } from './support/cascade-harness.ts';
import { parseMetrics, value } from './support/ops.ts';
import { racingStore } from './support/racing-store.ts';
import { janitorEngine, noHooks } from '../shared/engine/profiles.ts';
import { sweep } from '../shared/engine/janitor/sweep.ts';

let h: Harness;
let real: Store;
let config: EngineDeps['config'];
const MODULES = [imageModule('first', {}, { delayMs: 600_000 }), imageModule('second', {}, { delayMs: 600_000 })];
beforeAll(async () => {
  h = await cascadeHarness({ modules: MODULES, replicas: 0, source: false });
  const parsed = parseConfig(h.env);
  if (!parsed.ok) throw new Error(parsed.reason);
  config = parsed.value;
  real = connectStore(config.namespace, DEFAULT_RETRY, h.env.KUBECONFIG);
});
afterAll(async () => {
  await h?.stop();
});

function deps(store: Store, metrics = cascadeMetrics(SCENARIO)): EngineDeps {
  const base = { config, store, log: pino({ level: 'silent' }), now: () => new Date(), notify: async () => false };
  return janitorEngine(base, {
    ...noHooks(),
    conflict: () => metrics.conflicts.inc(),
    transitions: (ts, run) => {
      for (const t of ts) metrics.transition(t, run.spec);
    },
  });
}

describe('a status write that loses a race', () => {
  it('is reloaded and decided again on top of the other change, counted, and the run still ends right', async () => {
    const started = await startRun(deps(real), { turlinfo: 's3://in/x.tgz', iuid: 'c0ff1-race' });
    if (started.kind !== 'accepted') throw new Error(`run request not accepted: ${JSON.stringify(started)}`);
    const name = String(started.body.run);
    expect(name).toBe(`${SCENARIO}-c0ff1`);

    const other = { runname: name, modulename: 'first', moduleresult: '50% done' };
    const racing = racingStore(real, async () => {
      expect(await acceptModuleResult(deps(real), other)).toMatchObject({
        kind: 'accepted',
        body: { verdict: 'applied', phase: 'Running' },
      });
    });
    const metrics = cascadeMetrics(SCENARIO);
    const moved = await acceptModuleResult(deps(racing.store, metrics), {
      runname: name,
      modulename: 'first',
      moduleresult: 'success',
    });
    expect(racing.raced()).toBe(true);
    expect(moved).toMatchObject({ kind: 'accepted', body: { verdict: 'applied', phase: 'Running' } });
    expect(value(parseMetrics(await metrics.registry.metrics()), 'cascade_status_conflicts_total')).toBe(1);

    const run = await h.getRun(name);
    expect(run.status?.result).toEqual(['first: 50% done\n', 'first: success\n']);
    expect(run.status?.modules?.map((m) => `${m.name}:${m.phase}:${m.result ?? ''}`)).toEqual([
      'first:Succeeded:success',
      'second:Running:',
    ]);
    const recorded = await h.recorded([`${SCENARIO}-first-c0ff1`, `${SCENARIO}-second-c0ff1`]);
    expect([...recorded].map(([job, byUid]) => [job, byUid.size]).sort()).toEqual([
      [`${SCENARIO}-first-c0ff1`, 1],
      [`${SCENARIO}-second-c0ff1`, 1],
    ]);

    expect(
      await acceptModuleResult(deps(real), { runname: name, modulename: 'second', moduleresult: 'success' }),
    ).toMatchObject({ kind: 'accepted' });
    const ended = await h.waitEnded(name);
    expect(ended.status).toMatchObject({
      phase: 'Succeeded',
      result: ['first: 50% done\n', 'first: success\n', 'second: success\n'],
    });
    // No function process runs here: the janitor's sweep writes the counters from the runs.
    await sweep(deps(real), new Date());
    await expect
      .poll(async () => (await h.operator()).status, COUNTERS_SETTLE)
      .toMatchObject({ active: 0, succeeded: 1, failed: 0 });
  });
});
