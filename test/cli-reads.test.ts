// kubectl-cascade's reads against the real API server, on runs written
// directly with their status: -o jsonpath, list --since, --limit and the
// order by start time, list -w, which prints a row per change until Ctrl-C,
// and the window logs --since and --tail ask the API server for.
import { spawn } from 'node:child_process';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { CascadeRunStatus } from '../shared/api/cascade-run.ts';
import { auditLinesSince, auditLogOf, auditMark } from './support/audit-log.ts';
import { cli, CLI_BIN } from './support/cli.ts';
import { createRun } from './support/janitor.ts';
import { adminKubeConfig, adminKubeconfigPath, createTestNamespace, waitFor } from './support/kube.ts';
import { successScenario } from './fixtures/scenarios.ts';

vi.setConfig({ testTimeout: 200_000 });

const G = { group: 'cascade.cascade.net', version: 'v1alpha1', plural: 'cascaderuns' };
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

function succeeded(startedMsAgo: number): CascadeRunStatus {
  const start = ago(startedMsAgo);
  const end = ago(startedMsAgo - 3000);
  return {
    phase: 'Succeeded',
    notified: true,
    startTime: start,
    completionTime: end,
    currentStep: 2,
    currentModule: 'diff',
    conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded', message: 'done', lastTransitionTime: end }],
  } as CascadeRunStatus;
}

let ns: string;
let custom: CustomObjectsApi;
const names: Record<string, string> = {};
beforeAll(async () => {
  ns = await createTestNamespace('cli-reads');
  custom = adminKubeConfig().makeApiClient(CustomObjectsApi);
  const at = { custom, ns };
  const modules = successScenario(0);
  // created in this order, started in another: two days ago, ten minutes ago, two hours ago
  names.old = await createRun(at, 'reads', { iuid: 'old-run', modules, status: succeeded(2 * 86_400_000) });
  names.recent = await createRun(at, 'reads', { iuid: 'recent-run', modules, status: succeeded(600_000) });
  names.middle = await createRun(at, 'reads', { iuid: 'middle-run', modules, status: succeeded(7_200_000) });
});

describe('kubectl-cascade reads', () => {
  it('-o jsonpath prints the template over the List, or over the run for get, with no newline added', async () => {
    const listed = await cli(['list', '-o', 'jsonpath={range .items[*]}{.spec.pid}{"\\n"}{end}'], { namespace: ns });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toBe('recent-run\nmiddle-run\nold-run\n');
    const got = await cli(['get', names.recent!, '-o=jsonpath={.status.phase} {.spec.modules[*]}'], { namespace: ns });
    expect(got).toMatchObject({ code: 0, stdout: 'Succeeded grayscale binarization diff' });
    const bad = await cli(['list', '-o', 'jsonpath={.items['], { namespace: ns });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error parsing jsonpath/);
  });

  it('list sorts by start time, newest first; --since keeps runs started within it; --limit the newest N', async () => {
    const namesOf = (out: string) =>
      out
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[0]);
    expect(namesOf((await cli(['list'], { namespace: ns })).stdout)).toEqual([names.recent, names.middle, names.old]);
    expect(namesOf((await cli(['list', '--since', '3h'], { namespace: ns })).stdout)).toEqual([
      names.recent,
      names.middle,
    ]);
    expect(namesOf((await cli(['list', '--since', '1h', '--limit', '5'], { namespace: ns })).stdout)).toEqual([
      names.recent,
    ]);
    expect(namesOf((await cli(['list', '--limit', '2'], { namespace: ns })).stdout)).toEqual([
      names.recent,
      names.middle,
    ]);
    const bad = await cli(['list', '--since', 'soon'], { namespace: ns });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("option '--since <duration>' argument 'soon' is invalid");
  });

  it('list -w prints the table, then a row for each change, until Ctrl-C ends it with 130', async () => {
    const child = spawn(CLI_BIN, ['--kubeconfig', adminKubeconfigPath(), '-n', ns, 'list', '-w', '-o', 'name'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => out.split('\n').length > 3 || undefined, { timeoutMs: 60_000, message: 'the list' });
    expect(out.trim().split('\n')).toHaveLength(3);
    await custom.patchNamespacedCustomObject({
      ...G,
      namespace: ns,
      name: names.old!,
      body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
    });
    await waitFor(() => out.trim().split('\n').length === 4 || undefined, {
      timeoutMs: 60_000,
      message: 'a row for the change',
    });
    expect(out.trim().split('\n').at(-1)).toBe(`cascaderun.cascade.cascade.net/${names.old!}`);
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(130);
  });

  it("get lists each attempt of a retried step, with its trigger and reason, and a retry's due time", async () => {
    const retryNs = await createTestNamespace('cli-attempts');
    const start = ago(60_000);
    const failedAt = ago(55_000);
    const due = new Date(Date.now() + 3_600_000).toISOString();
    const name = await createRun({ custom, ns: retryNs }, 'reads', {
      iuid: 'retried-run',
      modules: successScenario(0),
      status: {
        phase: 'Running',
        startTime: start,
        currentStep: 1,
        currentModule: 'binarization',
        modules: [
          {
            step: 0,
            name: 'grayscale',
            jobName: 'j-gray',
            phase: 'Succeeded',
            startTime: start,
            completionTime: start,
          },
          {
            step: 1,
            name: 'binarization',
            jobName: 'j-bin-a2',
            phase: 'Pending',
            attempt: 2,
            trigger: 'Retry',
            retryAt: due,
            attempts: [
              {
                attempt: 1,
                jobName: 'j-bin',
                phase: 'Failed',
                trigger: 'Initial',
                startTime: start,
                completionTime: failedAt,
                reason: 'ModuleResultFailed',
              },
            ],
          },
        ],
      } as CascadeRunStatus,
    });
    const got = await cli(['get', name], { namespace: retryNs });
    expect(got.code, got.stderr).toBe(0);
    const [, steps, attempts] = got.stdout.trim().split('\n\n');
    expect(steps).toBeDefined();
    const [title, header, ...rows] = attempts!.split('\n');
    expect(title).toBe('Attempts:');
    expect(header!.split(/\s{3,}/)).toEqual([
      'STEP',
      'MODULE',
      'ATTEMPT',
      'TRIGGER',
      'JOB',
      'PHASE',
      'STARTED',
      'DURATION',
      'RETRY AT',
      'REASON',
    ]);
    expect(rows.map((r) => r.split(/\s{3,}/))).toEqual([
      [
        '2',
        'binarization',
        '1',
        'Initial',
        'j-bin',
        'Failed',
        expect.stringMatching(/ago$/),
        '5.0s',
        '-',
        'ModuleResultFailed',
      ],
      ['2', 'binarization', '2', 'Retry', '-', 'Pending', '-', '-', due],
    ]);
  });

  it('delete removes finished runs and their Jobs; it refuses an active run; --all --phase takes only that phase', async () => {
    const delNs = await createTestNamespace('cli-delete');
    const at = { custom, ns: delNs };
    const modules = successScenario(0);
    const ok = await createRun(at, 'reads', { iuid: 'del-ok', modules, status: succeeded(60_000) });
    const failed = await createRun(at, 'reads', {
      iuid: 'del-failed',
      modules,
      status: { ...succeeded(50_000), phase: 'Failed' } as CascadeRunStatus,
    });
    const active = await createRun(at, 'reads', {
      iuid: 'del-active',
      modules,
      status: { phase: 'Running', startTime: ago(10_000), currentStep: 0 } as CascadeRunStatus,
    });
    const batch = adminKubeConfig().makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: delNs,
      body: {
        metadata: { name: `${ok}-job`, labels: { 'cascade.cascade.net/run': ok } },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'registry.example/m:1' }] } },
        },
      },
    });
    const names = async () =>
      (
        (await custom.listNamespacedCustomObject({ ...G, namespace: delNs })) as {
          items: { metadata: { name: string } }[];
        }
      ).items
        .map((r) => r.metadata.name)
        .sort();

    const unrecorded = await createRun(at, 'reads', {
      iuid: 'del-unrecorded',
      modules,
      status: { ...succeeded(40_000), phase: 'Cancelled', notified: false } as CascadeRunStatus,
    });
    const early = await cli(['delete', unrecorded], { namespace: delNs });
    expect(early.code).toBe(1);
    expect(early.stderr).toBe(
      `error: cascaderun/${unrecorded} ended Cancelled, but its end is not recorded yet: try again shortly\n`,
    );
    const refused = await cli(['delete', active], { namespace: delNs });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: cascaderun/${active} is Running: only a finished run is deleted; cancel it first\n`,
    );

    const all = await cli(['delete', '--all', '--phase', 'succeeded'], { namespace: delNs });
    expect(all).toMatchObject({ code: 0, stdout: `cascaderun.cascade.cascade.net "${ok}" deleted\n` });
    await waitFor(async () => !(await names()).includes(ok) || undefined, {
      timeoutMs: 30_000,
      message: 'the run gone',
    });
    await waitFor(async () => (await batch.listNamespacedJob({ namespace: delNs })).items.length === 0 || undefined, {
      timeoutMs: 30_000,
      message: "the run's Job gone",
    });
    expect(await names()).toEqual([active, failed, unrecorded].sort());

    const one = await cli(['delete', failed], { namespace: delNs });
    expect(one).toMatchObject({ code: 0, stdout: `cascaderun.cascade.cascade.net "${failed}" deleted\n` });
    const missing = await cli(['delete', 'no-such-run'], { namespace: delNs });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: Error from server \(NotFound\): /);
    const running = await cli(['delete', '--all', '--phase', 'Running'], { namespace: delNs });
    expect(running.code).toBe(1);
    await waitFor(async () => (await names()).length === 2 || undefined, {
      timeoutMs: 30_000,
      message: 'two runs left',
    });
    expect(await names()).toEqual([active, unrecorded].sort());
  });
});

describe('kubectl-cascade logs --since and --tail', () => {
  // kwok runs pods without a kubelet: the API server has no log to give. What
  // it was asked for is in its audit log: the window of each pod's log read.
  it("asks the API server for each pod's log within --since and --tail, as kubectl logs does", async () => {
    const jobName = 'reads-logs-step-0';
    const startTime = ago(60_000);
    const status = {
      phase: 'Running',
      startTime,
      currentStep: 0,
      modules: [{ step: 0, name: 'grayscale', jobName, phase: 'Running', startTime }],
    } as CascadeRunStatus;
    const run = await createRun({ custom, ns }, 'reads', { iuid: 'logsrun', modules: successScenario(0), status });
    const pod = `${jobName}-pod`;
    await adminKubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: pod, labels: { 'job-name': jobName } },
          spec: { containers: [{ name: 'module', image: 'module:latest' }] },
        },
      });
    const audit = auditLogOf(adminKubeconfigPath());
    const mark = auditMark(audit);

    const r = await cli(['logs', run, '--since', '10m', '--tail', '3'], { namespace: ns });
    expect(r.stderr).toMatch(new RegExp(`^\\[grayscale\\] no logs from pod ${pod}: Error from server`, 'm'));
    const asked = await waitFor(
      () =>
        auditLinesSince(audit, mark)
          .filter((line) => line.includes(`/pods/${pod}/log`))
          .map((line) => new URL(`http://x${(JSON.parse(line) as { requestURI: string }).requestURI}`).searchParams)[0],
      { message: 'the log request in the audit log' },
    );
    expect([asked.get('sinceSeconds'), asked.get('tailLines'), asked.get('container')]).toEqual(['600', '3', 'module']);

    const all = await cli(['logs', run, '--tail', '-1'], { namespace: ns });
    expect(all.stderr).toMatch(/no logs from pod/);
    const bad = await cli(['logs', run, '--tail', 'some'], { namespace: ns });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toContain("option '--tail <lines>' argument 'some' is invalid");
  });
});
