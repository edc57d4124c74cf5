// kubectl-cascade against a Cascade installation on the local control plane:
// submit (to the function's URL, as --url gives it), list, get, watch (its
// plain output and exit status), logs, cancel and resume.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cascadeHarness, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { cli } from './support/cli.ts';
import { adminKubeConfig, waitFor } from './support/kube.ts';
import { failSecondScenario, imageModule, successScenario } from './fixtures/scenarios.ts';

// Each test runs several CLI processes, each starting a Node.js that loads client-node: slow on a loaded machine.
vi.setConfig({ testTimeout: 400_000 });
let h: Harness;
beforeAll(async () => {
  h = await cascadeHarness({ modules: successScenario(200) });
});
afterAll(async () => {
  await h?.stop();
});

const submit = (iuid: string, ...more: string[]) =>
  cli(['submit', '--url', h.url(), '--iuid', iuid, '--turlinfo', 's3://in/x.tgz', ...more], { namespace: h.ns });

describe('kubectl-cascade submit, list, get, watch', () => {
  it("submit prints the run's name; watch follows it to Succeeded and exits 0", async () => {
    const sent = await submit('cli-ok-1');
    expect(sent).toMatchObject({ code: 0, stdout: `${SCENARIO}-cli-o\n` });
    const watched = await cli(['watch', `${SCENARIO}-cli-o`], { namespace: h.ns });
    expect(watched.code).toBe(0);
    const lines = watched.stdout.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^grayscale Succeeded in \d+\.\ds$/),
        expect.stringMatching(/^binarization Succeeded in /),
        expect.stringMatching(/^diff Succeeded in /),
        expect.stringMatching(new RegExp(`^run ${SCENARIO}-cli-o Succeeded in `)),
      ]),
    );
    expect(lines.at(-1)).toMatch(/ Succeeded in /);
    expect(watched.stdout).not.toContain('\x1b');
    const run = await h.getRun(`${SCENARIO}-cli-o`);
    expect(run.status?.phase).toBe('Succeeded');
  });

  it('submit --watch follows the run it started and exits as watch does', async () => {
    const sent = await submit('cli-ok-2', '--watch');
    expect(sent.code).toBe(0);
    const name = sent.stdout.split('\n')[0]!;
    expect((await h.getRun(name)).spec.pid).toBe('cli-ok-2');
    expect(sent.stdout).toContain(`run ${name} Succeeded in `);
  });

  it('list shows the runs newest first; --phase filters; -o json and yaml print the objects', async () => {
    const listed = await cli(['list'], { namespace: h.ns });
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trim().split('\n');
    expect(header!.split(/\s{3,}/)).toEqual(['NAME', 'SCENARIO', 'PHASE', 'STEP', 'AGE', 'DURATION']);
    const runs = (await h.listRuns()).sort(
      (a, b) =>
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
        a.metadata.name!.localeCompare(b.metadata.name!),
    );
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(runs.map((r) => r.metadata.name));
    for (const row of rows) expect(row.split(/\s+/).slice(1, 4)).toEqual([SCENARIO, 'Succeeded', '3/3']);

    expect(await cli(['list', '--phase', 'Failed'], { namespace: h.ns })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `No runs found in ${h.ns} namespace.\n`,
    });
    const json = JSON.parse((await cli(['list', '-o', 'json'], { namespace: h.ns })).stdout) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    expect(json.kind).toBe('List');
    expect(json.items.map((i) => i.metadata.name)).toEqual(runs.map((r) => r.metadata.name));
    expect((await cli(['list', '-o', 'yaml'], { namespace: h.ns })).stdout).toMatch(
      /^apiVersion: v1\nkind: List\nitems:\n {2}- apiVersion: cascade.cascade.net\/v1alpha1\n/,
    );
  });

  it("list -A names each run's namespace; -o wide adds iuid, module and reason", async () => {
    const all = await cli(['list', '-A']);
    expect(all.code).toBe(0);
    expect(
      all.stdout
        .split('\n')[0]!
        .split(/\s{3,}/)
        .slice(0, 2),
    ).toEqual(['NAMESPACE', 'NAME']);
    expect(all.stdout).toMatch(new RegExp(`^${h.ns}\\s+${SCENARIO}-cli-o\\s`, 'm'));
    const wide = await cli(['list', '-o', 'wide'], { namespace: h.ns });
    expect(wide.stdout.split('\n')[0]!.split(/\s{3,}/)).toEqual([
      'NAME',
      'SCENARIO',
      'PHASE',
      'STEP',
      'AGE',
      'DURATION',
      'IUID',
      'MODULE',
      'REASON',
    ]);
    expect(wide.stdout).toMatch(new RegExp(`^${SCENARIO}-cli-o\\s.*\\scli-ok-1\\s+diff\\s+Succeeded$`, 'm'));
  });

  it('get shows the run and one row per module with its Job', async () => {
    const name = `${SCENARIO}-cli-o`;
    const run = await h.getRun(name);
    const got = await cli(['get', name], { namespace: h.ns });
    expect(got.code).toBe(0);
    const [summary, table] = got.stdout.split('\n\n');
    expect(summary).toMatch(new RegExp(`^Name: +${name}$`, 'm'));
    expect(summary).toMatch(/^Phase: +Succeeded$/m);
    expect(summary).toMatch(/^IUID: +cli-ok-1$/m);
    const [header, ...rows] = table!.trim().split('\n');
    expect(header!.split(/\s{3,}/)).toEqual([
      'STEP',
      'MODULE',
      'JOB',
      'PHASE',
      'STARTED',
      'DURATION',
      'RESULT',
      'REASON',
      'ATTEMPTS',
    ]);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 4))).toEqual(
      run.status!.modules!.map((m) => [String(m.step + 1), m.name, m.jobName, 'Succeeded']),
    );
    const json = JSON.parse((await cli(['get', name, '-o', 'json'], { namespace: h.ns })).stdout) as {
      metadata: { uid: string };
    };
    expect(json.metadata.uid).toBe(run.metadata.uid);
  });

  it('a run that does not exist is an error on stderr with a non-zero exit, for get and watch alike', async () => {
    for (const cmd of ['get', 'watch']) {
      const r = await cli([cmd, 'no-such-run'], { namespace: h.ns });
      expect(r.code, cmd).toBe(1);
      expect(r.stdout, cmd).toBe('');
      expect(r.stderr, cmd).toMatch(/^error: Error from server \(NotFound\): .*"no-such-run" not found/);
    }
  });

  it('submit names what the function refused, on stderr, with a non-zero exit', async () => {
    const r = await cli(['submit', '--url', h.url(), '--iuid', 'bad/iuid', '--turlinfo', 's3://in/x'], {
      namespace: h.ns,
    });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error: run request refused: 400 .*iuid: must be /);
  });
});

describe('kubectl-cascade logs of a run that succeeded', () => {
  it("names each module whose Job is gone with its pods (a succeeded run's Jobs go when it ends), in module order", async () => {
    const name = `${SCENARIO}-cli-o`;
    const r = await cli(['logs', name], { namespace: h.ns });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    const jobs = (await h.getRun(name)).status!.modules!.map((m) => `[${m.name}] no pod of Job ${m.jobName} (`);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .map((line) => line.slice(0, line.indexOf('(') + 1)),
    ).toEqual(jobs);

    const one = await cli(['logs', name, '--module', 'binarization'], { namespace: h.ns });
    expect(one.stderr).toMatch(/^\[binarization\] no pod of Job \S+ \(/);
    expect(one.stderr.trim().split('\n')).toHaveLength(1);
    const unknown = await cli(['logs', name, '--module', 'nope'], { namespace: h.ns });
    expect(unknown).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: run ${name} has no module nope (its modules: grayscale, binarization, diff)\n`,
    });
  });
});

describe('kubectl-cascade logs of a run in flight', () => {
  let r: Harness;
  beforeAll(async () => {
    r = await cascadeHarness({
      modules: [imageModule('first', {}, { delayMs: 0 }), imageModule('second', {}, { delayMs: 600_000 })],
    });
  });
  afterAll(async () => {
    await r?.stop();
  });

  // kwok's pods have no log to give (no kubelet): a pod found is named with the API server's reason.
  it("reads the pod of a finished step: the run keeps the step's Job until it ends", async () => {
    const sent = await cli(['submit', '--url', r.url(), '--iuid', 'cli-logs-1', '--turlinfo', 's3://in/x.tgz'], {
      namespace: r.ns,
    });
    expect(sent.code).toBe(0);
    const name = sent.stdout.trim();
    await waitFor(async () => (await r.getRun(name)).status?.modules?.[1]?.phase === 'Running', {
      timeoutMs: 60_000,
      message: 'step 2 running',
    });
    const logs = await cli(['logs', name, '--module', 'first'], { namespace: r.ns });
    expect(logs).toMatchObject({ code: 1, stdout: '' });
    expect(logs.stderr).toMatch(/^\[first\] no logs from pod \S+: /);
  });
});

describe('kubectl-cascade cancel and resume', () => {
  it('cancel of a run that ended changes nothing, says so and exits 1; an unknown run is an error', async () => {
    const name = `${SCENARIO}-cli-o`;
    const r = await cli(['cancel', name, '--url', h.url()], { namespace: h.ns });
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cascaderun/${name} had already ended Succeeded: nothing to cancel\n`,
    });
    expect((await h.getRun(name)).status?.phase).toBe('Succeeded');
    const missing = await cli(['cancel', 'no-such-run', '--url', h.url()], { namespace: h.ns });
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/NotFound/);
  });

  it('without --url annotate the run through the API server, and report what its status records', async () => {
    const name = `${SCENARIO}-cli-o`;
    const r = await cli(['cancel', name], { namespace: h.ns });
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cascaderun/${name} had already ended Succeeded: nothing to cancel\n`,
    });
    const run = await h.getRun(name);
    expect(run.status?.lastHandledCancel).toBe(run.metadata.annotations?.['cascade.cascade.net/cancel-requested-at']);
    expect(run.status?.phase).toBe('Succeeded');
  });
});

describe('kubectl-cascade cancel of a run in flight', () => {
  let c: Harness;
  beforeAll(async () => {
    c = await cascadeHarness({ modules: successScenario(600_000) });
  });
  afterAll(async () => {
    await c?.stop();
  });

  it('cancels it: the run ends Cancelled, and watch exits 3', async () => {
    const sent = await cli(['submit', '--url', c.url(), '--iuid', 'cli-cancel-1', '--turlinfo', 's3://in/x.tgz'], {
      namespace: c.ns,
    });
    expect(sent.code).toBe(0);
    const name = sent.stdout.trim();
    await waitFor(async () => (await c.getRun(name)).status?.phase === 'Running', {
      timeoutMs: 60_000,
      message: 'run Running',
    });
    const r = await cli(['cancel', name, '--url', c.url()], { namespace: c.ns });
    expect(r).toMatchObject({ code: 0, stdout: `cascaderun/${name} cancelled\n` });
    expect((await c.getRun(name)).status?.phase).toBe('Cancelled');
    const watched = await cli(['watch', name], { namespace: c.ns });
    expect(watched.code).toBe(3);
  });
});

describe('kubectl-cascade watch of a failing run', () => {
  let f: Harness;
  beforeAll(async () => {
    f = await cascadeHarness({ modules: failSecondScenario(200) });
  });
  afterAll(async () => {
    await f?.stop();
  });

  it('exits 2 when the run fails, naming the module that failed', async () => {
    const sent = await cli(
      ['submit', '--url', f.url(), '--iuid', 'cli-fail-1', '--turlinfo', 's3://in/x.tgz', '--watch'],
      { namespace: f.ns },
    );
    expect(sent.code).toBe(2);
    expect(sent.stdout).toMatch(/^fail Failed in .*$/m);
    expect(sent.stdout).not.toMatch(/^diff (Running|Succeeded|Failed)/m);
    expect(sent.stdout.trim().split('\n').at(-1)).toMatch(/^run \S+ Failed in /);
    expect((await cli(['list', '--phase', 'failed'], { namespace: f.ns })).stdout).toMatch(
      /^\S+\s+\S+\s+Failed\s+2\/3\s/m,
    );
  });

  it('resume sends the run back to work: it runs its failed module again (which fails again here)', async () => {
    const [run] = await f.listRuns();
    const name = run!.metadata.name!;
    const resumed = await cli(['resume', name, '--url', f.url()], { namespace: f.ns });
    expect(resumed).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^cascaderun/${name} resumed \\(phase \\w+\\)\\n$`)),
    });
    await waitFor(
      async () =>
        ((await f.getRun(name)).status?.modules?.find((m) => m.name === 'fail') as { attempt?: number } | undefined)
          ?.attempt === 2,
      { timeoutMs: 60_000, message: 'attempt 2 of fail' },
    );
    const watched = await cli(['watch', name], { namespace: f.ns });
    expect(watched.code).toBe(2);
    const got = await cli(['get', name], { namespace: f.ns });
    expect(got.stdout).toMatch(/^2\s+fail\s+\S+-a2\s+Failed\s.*\s2$/m);
  });

  // kwok runs the pods without a kubelet: the API server has no log to give
  // (it cannot reach one). The failed step's Job and pod are kept; its pod is
  // named on stderr with the API server's reason, and the exit status is non-zero.
  it("logs reads the pod of the failed module's Job, which is kept", async () => {
    const [run] = await f.listRuns();
    const failed = run!.status!.modules!.find((m) => m.name === 'fail')!;
    const pods = await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: f.ns, labelSelector: `job-name=${failed.jobName}` });
    expect(pods.items).toHaveLength(1);
    const r = await cli(['logs', run!.metadata.name!, '--module', 'fail'], { namespace: f.ns });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(
      new RegExp(`^\\[fail\\] no logs from pod ${pods.items[0]!.metadata!.name}: Error from server`, 'm'),
    );
  });
});
