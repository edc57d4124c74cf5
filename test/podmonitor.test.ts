// Issue 9, knative/monitoring/podmonitor.yaml, and the dead-letter sink's
// podmonitor-dead-letters.yaml: each PodMonitor is dry-run against the real
// PodMonitor CRD, and their relabelings are applied by the real Prometheus to
// the targets pod discovery gives for Knative pods.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { ensurePrometheus } from '../local/prometheus/binaries.ts';
import { startPrometheus, type RunningPrometheus } from '../local/prometheus/server.ts';
import { installPrometheusOperatorCrd } from './support/prometheus-operator-crds.ts';
import { podMonitorScrapeConfigs, podTargets, type PodMonitor } from './support/pod-monitor.ts';
import { dryRun } from './support/dry-run.ts';
import { createTestNamespace, waitFor } from './support/kube.ts';

// The pinned prometheus, built on a first run.
let prometheus = '';
beforeAll(async () => {
  prometheus = await ensurePrometheus();
});
let prom: RunningPrometheus | undefined;
afterEach(async () => {
  await prom?.stop();
  prom = undefined;
});

const DEAD_LETTERS = 'knative/monitoring/podmonitor-dead-letters.yaml';

describe('knative/monitoring/podmonitor.yaml', () => {
  it('passes a server-side dry run against the real PodMonitor CRD, and a broken copy does not', async () => {
    await installPrometheusOperatorCrd('podmonitors');
    const ns = await createTestNamespace('cascade-podmonitor');
    const podMonitor = load(readFileSync(join(repoRoot, 'knative/monitoring/podmonitor.yaml'), 'utf8')) as {
      spec: { podMetricsEndpoints: Record<string, unknown>[] };
    };
    const check = (doc: unknown) => dryRun([doc], { namespace: ns, strict: true });
    expect((await check(podMonitor)).trim()).toBe('podmonitor.monitoring.coreos.com/cascade');
    const deadLetters = load(readFileSync(join(repoRoot, DEAD_LETTERS), 'utf8'));
    expect((await check(deadLetters)).trim()).toBe('podmonitor.monitoring.coreos.com/cascade-dead-letters');
    const broken = structuredClone(podMonitor);
    broken.spec.podMetricsEndpoints[0]!.portNumber = 90_950; // above 65535
    await expect(check(broken)).rejects.toThrow(/portNumber/);
    const misspelt = structuredClone(podMonitor);
    misspelt.spec.podMetricsEndpoints[0]!.relabeling = misspelt.spec.podMetricsEndpoints[0]!.relabelings;
    await expect(check(misspelt)).rejects.toThrow(/unknown field/);
  });

  it("gives a real Prometheus one target per pod on port 9095 and queue-proxy's on 9091, IPv4 and IPv6 alike; targetPort 9095 gave none; the dead-letter sink's queue-proxy named by its service", async () => {
    const podMonitor = load(readFileSync(join(repoRoot, 'knative/monitoring/podmonitor.yaml'), 'utf8')) as PodMonitor;
    const deadLetters = load(readFileSync(join(repoRoot, DEAD_LETTERS), 'utf8')) as PodMonitor;
    const dir = mkdtempSync(join(tmpdir(), 'cascade-podmonitor-sd-'));
    const pod = (name: string, ip: string, service: string) =>
      podTargets({
        namespace: 'cascade-operator',
        name,
        ip,
        labels: { 'serving.knative.dev/service': service, app: service },
      });
    writeFileSync(
      join(dir, 'pods.json'),
      JSON.stringify([
        ...pod('cascade-00001-deployment-a', '10.244.0.7', 'cascade'),
        ...pod('cascade-00001-deployment-b', 'fd00::7', 'cascade'),
        ...pod('other-00001-deployment-c', '10.244.0.8', 'other'),
        ...pod('cascade-dead-letters-00001-deployment-d', '10.244.0.9', 'cascade-dead-letters'),
      ]),
    );
    try {
      // What the deployment docs used to say: targetPort 9095, a port no container declares.
      const before: PodMonitor = {
        metadata: { name: 'before' },
        spec: { ...podMonitor.spec, podMetricsEndpoints: [{ targetPort: 9095, path: '/metrics' }] },
      };
      const file = join(dir, 'pods.json');
      const extraScrapeConfigs = [
        ...podMonitorScrapeConfigs(podMonitor, 'cascade-operator', file),
        ...podMonitorScrapeConfigs(before, 'cascade-operator', file),
        ...podMonitorScrapeConfigs(deadLetters, 'cascade-operator', file),
      ];
      prom = await startPrometheus(prometheus, [], { scrapeInterval: '1h', extraScrapeConfigs });
      // 4 pods of 5 declared ports each, for 4 jobs
      const targets = await waitFor(
        async () => {
          const t = await prom!.targets();
          return t.active.length + t.dropped === 80 && t;
        },
        { message: 'the pods discovered' },
      );
      const active = targets.active
        .map((t) => `${t.scrapePool} ${t.scrapeUrl} ${t.labels.container} ${t.labels.pod}`)
        .sort();
      expect(active).toEqual([
        'podMonitor/cascade-operator/cascade-dead-letters/0 http://10.244.0.9:9091/metrics queue-proxy cascade-dead-letters-00001-deployment-d',
        'podMonitor/cascade-operator/cascade/0 http://10.244.0.7:9095/metrics user-container cascade-00001-deployment-a',
        'podMonitor/cascade-operator/cascade/0 http://[fd00::7]:9095/metrics user-container cascade-00001-deployment-b',
        'podMonitor/cascade-operator/cascade/1 http://10.244.0.7:9091/metrics queue-proxy cascade-00001-deployment-a',
        'podMonitor/cascade-operator/cascade/1 http://[fd00::7]:9091/metrics queue-proxy cascade-00001-deployment-b',
      ]);
      // the label the alert CascadeDeadLetters selects (prometheusrule.yaml)
      const sink = targets.active.find((t) => t.scrapePool.includes('cascade-dead-letters'))!;
      expect(sink.labels).toMatchObject({ service: 'cascade-dead-letters', namespace: 'cascade-operator' });
      expect(targets.active.filter((t) => t.labels.service !== undefined)).toEqual([sink]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
