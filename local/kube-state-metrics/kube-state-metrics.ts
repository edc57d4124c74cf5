// kube-state-metrics for the tests: the pinned build of build.sh, and a
// process of it against a control plane with Cascade's CustomResourceState
// configuration (knative/monitoring/kube-state-metrics-cascaderuns.yaml),
// custom resources only, as docs/operations.md runs it. It can serve built-in
// resources beside them, as an existing kube-state-metrics does.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBuildScript } from '../build-script.ts';
import { repoRoot } from '../cluster/paths.ts';
import { freePort } from '../stand-ins/function-process.ts';

export const kubeStateMetricsBuildScript = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');
export const cascadeRunsConfig = join(repoRoot, 'knative/monitoring/kube-state-metrics-cascaderuns.yaml');

/** Builds it when missing (progress on our stderr); resolves to the binary's path. */
export function ensureKubeStateMetrics(): Promise<string> {
  return runBuildScript(kubeStateMetricsBuildScript, 'kube-state-metrics');
}

export interface RunningKubeStateMetrics {
  metricsUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts it on free ports. `builtIn` names built-in resources to serve beside
 * the custom ones (`--resources`, e.g. cronjobs); without it, custom
 * resources only.
 */
export async function startKubeStateMetrics(
  binary: string,
  kubeconfig: string,
  args: string[] = [],
  builtIn: string[] = [],
): Promise<RunningKubeStateMetrics> {
  const [port, telemetryPort] = [await freePort(), await freePort()];
  const child = spawn(
    binary,
    [
      `--kubeconfig=${kubeconfig}`,
      '--host=127.0.0.1',
      `--port=${port}`,
      '--telemetry-host=127.0.0.1',
      `--telemetry-port=${telemetryPort}`,
      builtIn.length > 0 ? `--resources=${builtIn.join(',')}` : '--custom-resource-state-only',
      `--custom-resource-state-config-file=${cascadeRunsConfig}`,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-50_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(metricsUrl).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`kube-state-metrics did not serve ${metricsUrl} (exit ${child.exitCode}):\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { metricsUrl, output: () => log, stop };
}
