// `npm run janitor` as the CronJob runs it: a real process under the
// janitor's ServiceAccount, one summary line on stdout, the exit code; and
// what keeps state bounded by default: it deletes an ended run once the run's
// retention has passed, and not before.
import { BatchV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeRunStatus } from '../shared/api/cascade-run.ts';
import { DEFAULT_RETENTION_SECONDS } from '../shared/config.ts';
import { LABEL_RUN } from '../shared/names.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { createRun, janitorKubeconfig, runJanitorProcess } from './support/janitor.ts';
import { adminKubeConfig, apiStatus, sleep } from './support/kube.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

function summaryOf(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('functions/janitor/main.ts', () => {
  it('sweeps once, prints one summary line and exits 0; exits 1 when it cannot do its work', async () => {
    h = await cascadeHarness({ modules: successScenario(600_000), source: false });
    const kubeconfig = await janitorKubeconfig(h.ns);
    const env = {
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: h.ns,
      SCENARIO_NAME: SCENARIO,
      OUT_MINIO_ADDRESS: OUT,
      LOG_LEVEL: 'info',
    };
    const run = await createRun(h, SCENARIO, { iuid: 'proc1-abc', modules: successScenario(600_000) });

    const ok = await runJanitorProcess(env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(summaryOf(ok.stdout)).toMatchObject({
      janitor: 'sweep',
      runsSeen: 1,
      runsHandled: 1,
      advanced: 1,
      failed: {},
      finished: 0,
      active: 1,
      orphanJobsDeleted: 0,
      runsRemoved: 0,
      finalizerRemoved: false,
      errors: 0,
      durationMs: expect.any(Number),
    });
    expect((await h.getRun(run)).status?.phase).toBe('Running');
    expect([...(await h.recorded([`${SCENARIO}-grayscale-proc1`])).keys()]).toEqual([`${SCENARIO}-grayscale-proc1`]);

    const badConfig = await runJanitorProcess({ ...env, CASCADE_RETENTION_SECONDS: 'a week' });
    expect(badConfig.code).toBe(1);
    expect(summaryOf(badConfig.stdout)).toMatchObject({
      errors: 1,
      aborted: expect.stringMatching(/^configuration: CASCADE_RETENTION_SECONDS/),
    });

    // Its ServiceAccount has no rights outside its namespace: it cannot list runs there.
    const forbidden = await runJanitorProcess({ ...env, POD_NAMESPACE: 'default' });
    expect(forbidden.code).toBe(1);
    expect(summaryOf(forbidden.stdout)).toMatchObject({
      errors: 1,
      runsSeen: 0,
      aborted: expect.stringMatching(/^cannot list runs or Jobs: .*forbidden/),
    });
    expect(forbidden.stderr).toMatch(/sweep aborted/);
  });
});

describe('retention: an ended run is removed once its retention has passed', () => {
  const batch = adminKubeConfig().makeApiClient(BatchV1Api);
  const DAY = 86_400;

  async function janitorEnvOf(h: Harness): Promise<Record<string, string>> {
    return {
      KUBECONFIG: await janitorKubeconfig(h.ns),
      POD_NAMESPACE: h.ns,
      SCENARIO_NAME: SCENARIO,
      OUT_MINIO_ADDRESS: OUT,
    };
  }

  async function exists(h: Harness, name: string): Promise<boolean> {
    try {
      await h.getRun(name);
      return true;
    } catch (error) {
      if (apiStatus(error) === 404) return false;
      throw error;
    }
  }

  it('a run that ended through the function stays under the default retention, and goes once a short one has passed', async () => {
    h = await cascadeHarness({ modules: successScenario(0) });
    const reply = await post(h.url(), {
      turlinfo: 's3://in/retained.tgz',
      iuid: 'retain-01',
      oname: 'org',
      sname: 'src',
    });
    expect(reply.status).toBe(200);
    const run = String(reply.body.run);
    const ended = await h.waitEnded(run);
    expect(ended.status?.phase).toBe('Succeeded');
    const env = await janitorEnvOf(h);

    // The release's default (no variable): a week; the run ended moments ago.
    const kept = await runJanitorProcess(env);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ runsSeen: 1, runsRemoved: 0, errors: 0 });
    expect(await exists(h, run)).toBe(true);

    // A retention of 5 s: once 5 s have passed since the run's completionTime, the next pass deletes it.
    const retention = 5;
    const due = Date.parse(ended.status!.completionTime!) + retention * 1000;
    await sleep(Math.max(0, due - Date.now()) + 1000);
    const removed = await runJanitorProcess({ ...env, CASCADE_RETENTION_SECONDS: String(retention) });
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ runsSeen: 1, runsRemoved: 1, errors: 0 });
    expect(await exists(h, run)).toBe(false);
    const jobs = await batch.listNamespacedJob({ namespace: h.ns, labelSelector: `${LABEL_RUN}=${run}` });
    expect(jobs.items.filter((j) => !j.metadata?.deletionTimestamp)).toEqual([]);
  });

  it('with no variable set, the janitor deletes a run ended more than a week ago and keeps one ended less', async () => {
    h = await cascadeHarness({ modules: successScenario(0), source: false });
    const endedAgo = (seconds: number): CascadeRunStatus => {
      const at = new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      return { phase: 'Succeeded', startTime: at, completionTime: at, slotReleased: true, notified: true, result: [] };
    };
    expect(DEFAULT_RETENTION_SECONDS).toBe(7 * DAY);
    const old = await createRun(h, SCENARIO, {
      iuid: 'old08-abc',
      modules: successScenario(0),
      status: endedAgo(8 * DAY),
    });
    const recent = await createRun(h, SCENARIO, {
      iuid: 'new06-abc',
      modules: successScenario(0),
      status: endedAgo(6 * DAY),
    });
    const pass = await runJanitorProcess(await janitorEnvOf(h));
    expect(pass.code, pass.stderr).toBe(0);
    expect(JSON.parse(pass.stdout)).toMatchObject({ runsSeen: 2, runsRemoved: 1, errors: 0 });
    expect(await exists(h, old)).toBe(false);
    expect(await exists(h, recent)).toBe(true);
  });
});
