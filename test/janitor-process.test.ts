// `npm run janitor` as the CronJob runs it: a real process under the
// janitor's ServiceAccount, one summary line on stdout, the exit code.
import { afterEach, describe, expect, it } from 'vitest';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, OUT, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { createRun, janitorKubeconfig, runJanitorProcess } from './support/janitor.ts';

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
