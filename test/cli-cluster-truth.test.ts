// kubectl-cascade never says what the cluster contradicts (issue 25 §1): each
// case is what the CLI printed and what the API server showed at the same
// time, on the local control plane with the function running.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cascadeHarness, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { cli, CLI_BIN, CLI_ENTRY } from './support/cli.ts';
import { runCli } from '../cli/program.ts';
import { adminKubeconfigPath, waitFor } from './support/kube.ts';
import { failSecondScenario, successScenario } from './fixtures/scenarios.ts';
import { tempDir } from '../local/temp-dir.ts';

// Each test runs several CLI processes, each starting a Node.js that loads client-node: slow on a loaded machine.
vi.setConfig({ testTimeout: 400_000 });

const G = { group: 'cascade.cascade.net', version: 'v1alpha1' };
const submitArgs = (h: Harness, iuid: string, ...more: string[]) => [
  'submit',
  '--url',
  h.url(),
  '--iuid',
  iuid,
  '--turlinfo',
  's3://in/x.tgz',
  ...more,
];

describe('a quick scenario', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await cascadeHarness({ modules: successScenario(200) });
    await h.custom.createNamespacedCustomObject({
      ...G,
      namespace: h.ns,
      plural: 'cascadeautooperators',
      body: {
        apiVersion: 'cascade.cascade.net/v1alpha1',
        kind: 'CascadeAutoOperator',
        metadata: { name: 'other' },
        spec: { scenarioconfig: { cascademodules: successScenario(200) } },
      },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('submit --scenario starts that scenario and says nothing against it', async () => {
    const r = await cli(submitArgs(h, 'scn-1', '--scenario', 'other'), { namespace: h.ns });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const run = await h.getRun(r.stdout.trim());
    expect(run.spec.scenarioname).toBe('other');
  });

  it('submit without -n follows the run in the namespace the function created it in', async () => {
    const r = await cli(submitArgs(h, 'nons1', '--watch'));
    const name = r.stdout.split('\n')[0]!;
    expect(r.code, r.stderr).toBe(0);
    expect((await h.getRun(name)).status?.phase).toBe('Succeeded');
    expect(r.stdout).toContain(`run ${name} Succeeded in `);
    expect(r.stderr).toBe(`cascaderun/${name} is in namespace ${h.ns}: give -n ${h.ns} to other commands\n`);
  });

  it('-n=NS is the namespace NS, as kubectl reads it', async () => {
    const [run] = await h.listRuns();
    const r = await cli([`-n=${h.ns}`, 'get', run!.metadata.name!]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Namespace: +${h.ns}$`, 'm'));
  });

  it('-o name names the runs as kubectl does; -o json leaves managedFields out; --phase takes only a phase', async () => {
    const runs = await h.listRuns();
    const names = await cli(['list', '-o', 'name'], { namespace: h.ns });
    expect(names.code, names.stderr).toBe(0);
    expect(names.stdout.trim().split('\n').sort()).toEqual(
      runs.map((r) => `cascaderun.cascade.cascade.net/${r.metadata.name}`).sort(),
    );
    const json = await cli(['get', runs[0]!.metadata.name!, '-o', 'json'], { namespace: h.ns });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ metadata: { name: runs[0]!.metadata.name } });
    expect(json.stdout).not.toContain('managedFields');
    expect(await cli(['list', '--phase', 'Done'], { namespace: h.ns })).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: --phase Done: not a phase (one of Queued, Pending, Running, Succeeded, Failed, Cancelled)\n',
    });
  });

  it("version names the API server's version; -l selects runs by label", async () => {
    const v = await cli(['version']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^Client Version: \S+\nServer Version: v1\.\d+\.\d+/);
    // The bin reads a bare `version` without commander; commander's `version` prints the same.
    let viaCommander = '';
    const io = { out: { write: (s: string) => void (viaCommander += s) }, err: process.stderr, env: {}, now: Date.now };
    expect(await runCli(['--kubeconfig', adminKubeconfigPath(), 'version'], io)).toBe(0);
    expect(viaCommander).toBe(v.stdout);
    const none = await cli(['list', '-l', 'no-such-label=x'], { namespace: h.ns });
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: `No runs found in ${h.ns} namespace.\n` });
    const all = await cli(['list', '-o', 'name', '-l', 'app=Cascade'], { namespace: h.ns });
    expect(all.stdout.trim().split('\n')).toHaveLength((await h.listRuns()).length);
  });

  it("lint refuses a CascadeAutoOperator with a misspelt field, as the API server's dry run does", async () => {
    const [a, b, c] = successScenario();
    const cao = {
      apiVersion: 'cascade.cascade.net/v1alpha1',
      kind: 'CascadeAutoOperator',
      metadata: { name: 'misspelt' },
      spec: { scenarioconfig: { cascademodules: [{ ...a, backoffLimt: 2 }, b, c] } },
    };
    const file = join(tempDir('cascade-lint-'), 'misspelt.yaml');
    writeFileSync(file, dump(cao));
    const r = await cli(['lint', file], { namespace: h.ns });
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr.trim().split('\n')).toEqual([
      `${file}: module grayscale: backoffLimt: unknown field (the API server's strict field validation refuses it)`,
    ]);
    // Nothing was created, and an existing operator's name is dry-run replaced, not refused as taken.
    await expect(
      h.custom.getNamespacedCustomObject({ ...G, namespace: h.ns, plural: 'cascadeautooperators', name: 'misspelt' }),
    ).rejects.toMatchObject({ code: 404 });
    writeFileSync(
      file,
      dump({ ...cao, metadata: { name: 'other' }, spec: { scenarioconfig: { cascademodules: [a, b, c] } } }),
    );
    expect(await cli(['lint', file], { namespace: h.ns })).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('a run that failed and was resumed', () => {
  let f: Harness;
  beforeAll(async () => {
    f = await cascadeHarness({ modules: failSecondScenario(200) });
  });
  afterAll(async () => {
    await f?.stop();
  });

  it('cancel of the Failed run says it had ended and exits 1; resume exits 0 once the run shows it', async () => {
    const sent = await cli(submitArgs(f, 'res-1', '--watch'), { namespace: f.ns });
    expect(sent.code).toBe(2);
    const name = sent.stdout.split('\n')[0]!;
    const cancelled = await cli(['cancel', name, '--url', f.url()], { namespace: f.ns });
    expect(cancelled).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cascaderun/${name} had already ended Failed: nothing to cancel\n`,
    });
    const resumed = await cli(['resume', name], { namespace: f.ns }); // through the API server: an annotation
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^cascaderun/${name} resumed \\(phase \\w+\\)\\n$`));
    expect((await f.getRun(name)).status?.resumes).toBe(1);
  });

  it("logs says an earlier attempt's Job went with the run's end, not because it succeeded", async () => {
    const [run] = await f.listRuns();
    const name = run!.metadata.name!;
    await waitFor(async () => (await f.getRun(name)).status?.phase === 'Failed', {
      timeoutMs: 100_000,
      message: 'the resumed run failed again',
    });
    const step = (await f.getRun(name)).status!.modules!.find((m) => m.name === 'fail')!;
    const first = (step.attempts as { jobName: string }[])[0]!.jobName;
    const r = await cli(['logs', name, '--module', 'fail'], { namespace: f.ns });
    expect(r.stderr).toContain(
      `[fail] no pod of Job ${first} (the run ended Failed: Cascade deletes a run's Jobs, and their pods, when it ends)\n`,
    );
    expect(r.stderr).not.toContain('succeeded');
  });
});

/** The CLI as a terminal runs it, in a process group of its own: Ctrl-C sends SIGINT to that whole group. */
function interruptible(command: readonly string[], args: string[]) {
  const [file, ...before] = command;
  const child = spawn(file!, [...before, '--kubeconfig', adminKubeconfigPath(), ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', () => {});
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { stdout: () => stdout, exited, interrupt: () => process.kill(-child.pid!, 'SIGINT') };
}

describe('a run that runs long, and one queued behind it', () => {
  let q: Harness;
  let running: string;
  let queued: string;
  beforeAll(async () => {
    q = await cascadeHarness({ modules: successScenario(600_000), operatorSpec: { maxConcurrentRuns: 1 } });
    running = (await post(q.url(), { turlinfo: 's3://in/x.tgz', iuid: 'long1' })).body.run as string;
    await waitFor(async () => (await q.getRun(running)).status?.phase === 'Running', {
      timeoutMs: 60_000,
      message: 'the first run Running',
    });
    queued = (await post(q.url(), { turlinfo: 's3://in/x.tgz', iuid: 'long2' })).body.run as string;
    await waitFor(async () => (await q.getRun(queued)).status?.phase === 'Queued', {
      timeoutMs: 60_000,
      message: 'the second run Queued',
    });
  });
  afterAll(async () => {
    await q?.stop();
  });

  it("list shows no step for the Queued run, and the running run's step counted from 1", async () => {
    const r = await cli(['list'], { namespace: q.ns });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${queued}\\s+${SCENARIO}\\s+Queued\\s+-\\s+\\S+\\s+-$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${running}\\s+${SCENARIO}\\s+Running\\s+1/3\\s`, 'm'));
  });

  it('get shows the steps not reached as Waiting, with no Job, counted from 1 as Step: is', async () => {
    const waiting = await cli(['get', queued], { namespace: q.ns });
    expect(waiting.code, waiting.stderr).toBe(0);
    expect(waiting.stdout).not.toMatch(/^Step:/m);
    const rows = (s: string) =>
      s
        .split('\n\n')[1]!
        .trim()
        .split('\n')
        .slice(1)
        .map((row) => row.split(/\s+/));
    expect(rows(waiting.stdout)).toEqual([
      ['1', 'grayscale', '-', 'Waiting', '-', '-', '0'],
      ['2', 'binarization', '-', 'Waiting', '-', '-', '0'],
      ['3', 'diff', '-', 'Waiting', '-', '-', '0'],
    ]);
    const run = await q.getRun(running);
    const got = await cli(['get', running], { namespace: q.ns });
    expect(got.stdout).toMatch(/^Step: +1\/3$/m);
    expect(rows(got.stdout).map((r) => r.slice(0, 4))).toEqual([
      ['1', 'grayscale', run.status!.modules![0]!.jobName, 'Running'],
      ['2', 'binarization', '-', 'Waiting'],
      ['3', 'diff', '-', 'Waiting'],
    ]);
  });

  it("logs -f of the Queued run waits past the API server's watch timeout, and ends when the run does", async () => {
    const following = cli(['logs', queued, '-f'], { namespace: q.ns });
    const early = await Promise.race([
      following,
      new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 45_000)),
    ]);
    expect(early).toBe('waiting');
    const cancelled = await cli(['cancel', queued], { namespace: q.ns }); // through the API server: an annotation
    expect(cancelled).toMatchObject({ code: 0, stdout: `cascaderun/${queued} cancelled\n` });
    expect(await following).toMatchObject({ code: 0, stderr: '' });
  });

  it("Ctrl-C on watch exits 130, through the bin, its Node.js entry in-process, or the entry's child Node.js", async () => {
    // --no-experimental-strip-types: the entry then runs the sources in a child, as on a Node.js without type stripping.
    for (const command of [
      [CLI_BIN],
      [process.execPath, CLI_ENTRY],
      [process.execPath, '--no-experimental-strip-types', CLI_ENTRY],
    ]) {
      const w = interruptible(command, ['-n', q.ns, 'watch', running]);
      await waitFor(() => w.stdout().includes(`run ${running} Running`), {
        timeoutMs: 100_000,
        message: `watch's first lines (${command.join(' ')})`,
      });
      w.interrupt();
      expect(await w.exited, command.join(' ')).toEqual({ code: 130, signal: null });
    }
    expect((await q.getRun(running)).status?.phase).toBe('Running');
  });

  it('resume of the Running run says it is not resumable and exits 1; cancel again of the cancelled one too; a request not handled in time says so', async () => {
    const resumed = await cli(['resume', running, '--url', q.url()], { namespace: q.ns });
    expect(resumed).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cascaderun/${running} is Running: only a Failed or Cancelled run can be resumed\n`,
    });
    const again = await cli(['cancel', queued], { namespace: q.ns });
    expect(again).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cascaderun/${queued} had already ended Cancelled: nothing to cancel\n`,
    });
    // No source delivers the run's change while it is stopped, and no janitor sweeps here: the request stays pending.
    q.sources[0]!.stop();
    const late = await cli(['cancel', running, '--timeout', '5s'], { namespace: q.ns });
    expect(late).toMatchObject({ code: 1, stdout: '' });
    expect(late.stderr).toMatch(
      new RegExp(
        `^error: cascaderun/${running} has not handled the cancel request within 5s \\(phase Running\\): it stays pending in its annotation cascade\\.cascade\\.net/cancel-requested-at=\\S+, `,
      ),
    );
  });
});
