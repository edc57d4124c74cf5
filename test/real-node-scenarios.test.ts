// The seed's scenarios with every module a real container on the real node
// (local/node/): containerd and runc run the module image, the kubelet
// reports each pod's end, the Job controller turns it into the Job's
// condition, and Cascade's function (a real process, as in the other
// end-to-end tests) moves the run on from it. `kubectl cascade logs` reads
// each module's output from the kubelet, through the API server.
import { BatchV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { onRealNode, realModule, restrictedContainer } from '../local/node/real-modules.ts';
import { MODULE_IMAGE } from '../local/node/images.ts';
import { REAL_NODE } from '../local/node/node-config.ts';
import { cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { cli } from './support/cli.ts';
import { adminKubeConfig, createTestNamespace, waitFor } from './support/kube.ts';
import { useRealNode } from './support/real-node.ts';

useRealNode();

const IUID = '33e65374-ee8e-4da6-a2e7-71a9cc39d222';
const RUN = `${SCENARIO}-33e65`;
const INPUT = 's3://incoming/in.tgz';
const stage = (i: number) => `${OUT}${SCENARIO}/${IUID}/${IUID}-stage-${i}.zip`;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/** The seed's success scenario, its modules printing two lines each. */
const success = () => [
  realModule('grayscale', { foo: 'bar', spamm: 'eggs', test1: 'test2', lines: '2' }),
  realModule('binarization', { eggs: 'spamm', test2: 'test1', thresh: '128', lines: '2' }),
  realModule('diff', { bar: 'foo', eggs: 'spamm', test2: 'test1', lines: '2' }),
];

/** The seed's fail-first scenario: its module `fail` prints, waits and exits 1. */
const failFirst = () => [
  realModule('grayscale', { foo: 'bar', spamm: 'eggs', test1: 'test2' }),
  realModule('fail', { eggs: 'spamm', test2: 'test1', thresh: '128', lines: '2', interval: '1', exitcode: '1' }),
  realModule('diff', { bar: 'foo', eggs: 'spamm', test2: 'test1' }),
];

/** The node and the container's end of the one pod of a Job, and the Job's Failed condition. */
async function podOf(ns: string, job: string) {
  const kc = adminKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const [pod] = (await core.listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` })).items as [V1Pod];
  const { status } = await kc.makeApiClient(BatchV1Api).readNamespacedJob({ namespace: ns, name: job });
  return {
    node: pod.spec?.nodeName,
    terminated: pod.status?.containerStatuses?.[0]?.state?.terminated,
    jobFailed: status?.conditions?.find((c) => c.type === 'Failed'),
  };
}

describe('the seed scenarios on the real node', () => {
  it('success: three real containers in turn, the run Succeeded, `logs -f` prints what each module printed', async () => {
    h = await cascadeHarness({ modules: success() });
    expect(await post(h.url(), { turlinfo: INPUT, iuid: IUID })).toMatchObject({ status: 200, body: { run: RUN } });
    const following = cli(['logs', RUN, '-f'], { namespace: h.ns });
    const run = await h.waitEnded(RUN, 120_000);
    expect(run.status).toMatchObject({ phase: 'Succeeded', info: `${OUT}${SCENARIO}/${IUID}/${IUID}-final.zip` });
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);

    const logs = await following;
    expect(logs.code, logs.stderr).toBe(0);
    const lines = logs.stdout.split('\n');
    const [grayscale, binarization, diff] = run.status!.modules!.map((m) => m.jobName);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^\\[grayscale\\] module ${grayscale}-\\w+ in namespace ${h.ns} of scenario ${SCENARIO}$`),
        ),
        `[grayscale] input ${INPUT}`,
        '[grayscale] env foo=bar',
        '[grayscale] line 2',
        expect.stringMatching(new RegExp(`^\\[binarization\\] module ${binarization}-\\w+ in namespace ${h.ns} `)),
        `[binarization] input ${stage(1)}`,
        '[binarization] env thresh=128',
        `[diff] input ${stage(2)}`,
        '[diff] final stage',
        '[diff] exit 0',
      ]),
    );
    expect(lines.filter((l) => l.startsWith('[diff] module '))[0]).toContain(diff);
    // in module order: each module's lines come after the one before it ended
    const at = (line: string) => lines.indexOf(line);
    expect(at('[grayscale] exit 0')).toBeLessThan(at(`[binarization] input ${stage(1)}`));
    expect(at('[binarization] exit 0')).toBeLessThan(at(`[diff] input ${stage(2)}`));
    // only the last module is told it is the final stage
    expect(lines.filter((l) => l.includes('final'))).toEqual(['[diff] final stage', '[diff] env finalstage=true']);
  });

  it("fail-first: the module's exit code 1 fails its step and the run; its pod ran on the real node and `logs` prints its output", async () => {
    h = await cascadeHarness({ modules: failFirst() });
    expect((await post(h.url(), { turlinfo: INPUT, iuid: IUID })).status).toBe(200);
    const run = await h.waitEnded(RUN, 120_000);
    expect(run.status).toMatchObject({ phase: 'Failed', info: 'Failed', currentModule: 'fail', currentStep: 1 });
    expect(run.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'Succeeded', status: 'False', reason: 'ModuleFailed' }),
    );
    expect(run.status?.modules?.map((m) => m.phase)).toEqual(['Succeeded', 'Failed', 'Pending']);

    const pod = await podOf(h.ns, run.status!.modules![1]!.jobName);
    expect(pod.node).toBe(REAL_NODE.name);
    expect(pod.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(pod.jobFailed).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(run.status?.modules?.[1]).toMatchObject({ reason: 'ModuleFailed', message: pod.jobFailed?.message });

    const logs = await cli(['logs', RUN, '--module', 'fail'], { namespace: h.ns });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        `[fail] input ${stage(1)}`,
        '[fail] env exitcode=1',
        '[fail] line 1',
        '[fail] line 2',
        '[fail] exit 1',
      ]),
    );
  });

  it("a module killed by its memory limit fails its step with the Job's message, and its pod says OOMKilled", async () => {
    h = await cascadeHarness({ modules: [realModule('hungry', { allocate: '64' }, { memoryLimit: '16Mi' })] });
    expect((await post(h.url(), { turlinfo: INPUT, iuid: IUID })).status).toBe(200);
    const run = await h.waitEnded(RUN, 120_000);
    expect(run.status).toMatchObject({ phase: 'Failed' });
    const pod = await podOf(h.ns, run.status!.modules![0]!.jobName);
    expect(pod.jobFailed).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(run.status?.modules?.[0]).toMatchObject({
      phase: 'Failed',
      reason: 'ModuleFailed',
      message: pod.jobFailed?.message,
    });
    expect(pod.node).toBe(REAL_NODE.name);
    expect(pod.terminated).toMatchObject({
      exitCode: 137,
      reason: 'OOMKilled',
    });
  });

  it('a pod on the real node finds the `kubernetes` Service by name through the cluster DNS, CoreDNS', async () => {
    const namespace = await createTestNamespace('cascade-dns');
    const core = adminKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'lookup' },
        spec: {
          ...onRealNode,
          restartPolicy: 'Never',
          containers: [
            {
              name: 'lookup',
              image: MODULE_IMAGE,
              command: ['/bin/busybox', 'nslookup', 'kubernetes.default.svc.cluster.local'],
              securityContext: restrictedContainer,
            },
          ],
        },
      },
    });
    const phase = await waitFor(
      async () => {
        const p = (await core.readNamespacedPod({ name: 'lookup', namespace })).status?.phase;
        return p === 'Succeeded' || p === 'Failed' ? p : undefined;
      },
      { timeoutMs: 60_000, message: 'the lookup pod ended' },
    );
    const log = await core.readNamespacedPodLog({ name: 'lookup', namespace });
    expect(phase, log).toBe('Succeeded');
    expect(log).toMatch(/Name:\s+kubernetes\.default\.svc\.cluster\.local\nAddress:\s+10\.96\.0\.1/);
  });
});
